import { type ParseArgsConfig, parseArgs } from 'node:util';
import { type Config, loadConfig } from '../config.ts';
import type { ChangeFeed } from '../db/change-feed.ts';
import { type DatabaseHandle, openDatabase } from '../db/connect.ts';
import { AppError } from '../errors.ts';
import type { ServiceDeps } from '../services/deps.ts';
import { getProject, listProjects } from '../services/projects.ts';
import { createSecretBox } from '../webhooks/secret-box.ts';
import { closestMatch } from './suggest.ts';

/** Where a command reads its environment and writes its output; tests pass their own. */
export interface CliIo {
  env: Record<string, string | undefined>;
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  cwd?: string;
}

/** The exit codes: 0 ok, 1 the operation failed, 2 the command line or configuration is wrong. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** A wrong command line: exit code 2, the message and a pointer to `--help`. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** What every command gets: its parsed arguments, output helpers and, on demand, the database. */
export interface CommandContext {
  io: CliIo;
  json: boolean;
  /** The configuration from `io.env`, loaded once. */
  config(): Config;
  /** The services' dependencies on a migrated database, opened once and closed by the runner. */
  deps(): Promise<ServiceDeps>;
  /** Writes `data` as JSON with `--json`, else the human text `text()` builds. */
  print(data: unknown, text: () => string): void;
}

export interface CommandSpec {
  /** `projects create`: the words that select the command. */
  name: string;
  summary: string;
  /** The full help text after the usage line. */
  help: string;
  usage: string;
  options?: ParseArgsConfig['options'];
  /** Positional arguments: names of the required ones, in order. */
  positionals?: string[];
  /** Names of optional positional arguments after the required ones. */
  optionalPositionals?: string[];
  run(context: CommandContext, args: ParsedArgs): Promise<number>;
  /** A long-running process whose output is a log, not a result: no `--json`. */
  noJson?: true;
}

export interface ParsedArgs {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** Parses a command's arguments strictly: unknown options and missing positionals are usage errors. */
export function parseCommandArgs(spec: CommandSpec, argv: string[]): ParsedArgs {
  const options: ParseArgsConfig['options'] = {
    ...spec.options,
    ...(spec.noJson ? {} : { json: { type: 'boolean' } }),
    help: { type: 'boolean', short: 'h' },
  };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    // Node's message goes on to explain `--`; the first sentence names the problem.
    const problem = (error as Error).message.split(/\.\s|\n/)[0]!;
    const unknown = /^Unknown option '--([^'=]+)'$/.exec(problem)?.[1];
    throw new UsageError(
      `${problem}${unknown === undefined ? '' : unknownOptionHint(spec, options, unknown)}`,
    );
  }
  const required = spec.positionals ?? [];
  if (!parsed.values.help) {
    if (parsed.positionals.length < required.length) {
      throw new UsageError(`missing ${required.slice(parsed.positionals.length).join(' and ')}`);
    }
    const most = required.length + (spec.optionalPositionals?.length ?? 0);
    if (parsed.positionals.length > most) {
      const extra = parsed.positionals[most]!;
      const hint =
        spec.options?.project && extra.startsWith('prj_') ? `; give the project as --project ${extra}` : '';
      throw new UsageError(`unexpected argument "${extra}"${hint}`);
    }
  }
  return {
    values: parsed.values as ParsedArgs['values'],
    positionals: parsed.positionals,
  };
}

// Settings an operator may try to pass as options, as `--port` for `PORT` (config.ts reads them).
const SETTINGS: Record<string, string> = {
  port: 'PORT',
  host: 'HOST',
  'database-url': 'DATABASE_URL',
  'data-dir': 'FOLIO_DATA_DIR',
  'base-url': 'FOLIO_BASE_URL',
  'admin-token': 'FOLIO_ADMIN_TOKEN',
  'log-level': 'LOG_LEVEL',
};

/** What to say after "Unknown option '--NAME'": the way this command takes it, if it has one. */
function unknownOptionHint(spec: CommandSpec, options: ParseArgsConfig['options'], name: string): string {
  // Article, import and export commands take --project; the others take PROJECT first.
  if (name === 'project' && spec.positionals?.[0] === 'PROJECT') {
    return `; this command takes the project as its argument: folio ${spec.name} PROJECT`;
  }
  const setting = SETTINGS[name];
  if (setting) {
    return `; settings are environment variables (see the README's Configuration): ${setting}=… folio ${spec.name}`;
  }
  const match = closestMatch(name, Object.keys(options ?? {}));
  return match ? `; did you mean --${match}?` : '';
}

/** The context a runner hands to a command; `close()` releases the database if it was opened. */
export function createContext(io: CliIo, json: boolean): CommandContext & { close(): Promise<void> } {
  let config: Config | undefined;
  let database: Promise<Opened> | undefined;
  const context = {
    io,
    json,
    config: () => {
      config ??= loadConfig(io.env, io.cwd);
      return config;
    },
    deps: async () => {
      database ??= openMigrated(context.config());
      return (await database).deps;
    },
    print(data: unknown, text: () => string) {
      io.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : `${text()}\n`);
    },
    async close() {
      // A database that failed to open was reported by the command; there is nothing to close.
      const opened = await database?.catch(() => undefined);
      if (!opened) return;
      const { handle, feed } = opened;
      // The command's writes are served by every server process before the command returns.
      await feed.settle();
      await feed.close();
      await handle.db.destroy();
    },
  };
  return context;
}

interface Opened {
  handle: DatabaseHandle;
  feed: ChangeFeed;
  deps: ServiceDeps;
}

async function openMigrated(config: Config): Promise<Opened> {
  const handle = await openDatabase({ ...config, poolSize: 2 });
  let feed: ChangeFeed;
  try {
    await handle.migrate();
    feed = await handle.follow({ serving: false });
  } catch (error) {
    await handle.db.destroy();
    throw error;
  }
  const deps: ServiceDeps = {
    db: handle.db,
    now: Date.now,
    webhooks: { allowPrivate: config.webhookAllowPrivate, secretBox: createSecretBox(config.secretKey) },
  };
  return { handle, feed, deps };
}

/**
 * The project a command works on: `--project` when given; otherwise the only project, so a
 * single-site installation needs no id. With none or several, the id is required.
 */
export async function resolveProjectId(deps: ServiceDeps, given: string | undefined): Promise<string> {
  if (given) return given;
  const projects = await listProjects(deps);
  if (projects.length === 1) return projects[0]!.id;
  if (projects.length === 0) {
    throw new AppError('not_found', 'There is no project yet; create one with `folio projects create`.');
  }
  throw new UsageError(
    `--project is required: there are ${projects.length} projects (see \`folio projects list\`)`,
  );
}

/** `--project` of the commands that work on one project's articles. */
export const PROJECT_OPTION = {
  help: '  --project ID   the project (default: the only project, if there is one)',
  options: { project: { type: 'string' } },
} as const;

/** The services' dependencies and the project `--project` names (or the only one); 404 if unknown. */
export async function openProject(
  context: CommandContext,
  values: ParsedArgs['values'],
): Promise<{ deps: ServiceDeps; projectId: string }> {
  const deps = await context.deps();
  const projectId = (await getProject(deps, await resolveProjectId(deps, values.project as string))).id;
  return { deps, projectId };
}

/** The value of a whole-number option such as `--page`, or `fallback` when it is not given. */
export function wholeNumber(option: string, raw: string | boolean | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  if (typeof raw !== 'string' || !/^[1-9]\d{0,8}$/.test(raw)) {
    throw new UsageError(`${option} must be a whole number of at least 1, not "${String(raw)}"`);
  }
  return Number(raw);
}

/** Text columns, padded to the widest cell of each. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}
