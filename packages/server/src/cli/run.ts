import { ConfigError } from '../config.ts';
import { AppError, reasonOf } from '../errors.ts';
import { FOLIO_VERSION } from '../version.ts';
import { adminTokenCommands } from './admin-token.ts';
import { articleCommands } from './articles.ts';
import { backupCommand } from './backup.ts';
import { changesCommands } from './changes.ts';
import {
  type CliIo,
  type CommandSpec,
  createContext,
  EXIT_FAILED,
  EXIT_OK,
  EXIT_USAGE,
  parseCommandArgs,
  UsageError,
} from './context.ts';
import { exportCommand } from './export.ts';
import { importCommand } from './import.ts';
import { keyCommands } from './keys.ts';
import { projectCommands } from './projects.ts';
import { serverCommands } from './server.ts';
import { closestMatch } from './suggest.ts';
import { webhookCommands } from './webhook.ts';

/** Every command, in the order `folio --help` lists them. */
export const COMMANDS: CommandSpec[] = [
  ...serverCommands,
  ...projectCommands,
  ...keyCommands,
  ...articleCommands,
  ...webhookCommands,
  importCommand,
  exportCommand,
  backupCommand,
  ...changesCommands,
  ...adminTokenCommands,
];

/**
 * Runs one `folio` command line and answers its exit code: 0 ok, 1 the operation failed (not
 * found, invalid input, invalid import lines), 2 a usage or configuration error. Output goes to
 * `io.stdout` (results; JSON with --json) and `io.stderr` (one-line errors, progress).
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  // `folio help projects create` is `folio projects create --help`, as in git and gh.
  if (argv[0] === 'help' && argv[1] !== undefined && !argv[1].startsWith('-')) {
    return runCli([...argv.slice(1), '--help'], io);
  }
  const json = argv.includes('--json');
  const { command, rest } = findCommand(argv);
  if (!command) return printTopLevel(argv, io);
  const context = createContext(io, json);
  try {
    const args = parseCommandArgs(command, rest);
    if (args.values.help) {
      io.stdout.write(commandHelp(command));
      return EXIT_OK;
    }
    return await command.run(context, args);
  } catch (error) {
    return reportError(error, command, io, json);
  } finally {
    await context.close();
  }
}

function findCommand(argv: string[]): { command: CommandSpec | undefined; rest: string[] } {
  const words = argv.filter((arg) => !arg.startsWith('-'));
  for (const length of [2, 1]) {
    const name = words.slice(0, length).join(' ');
    const command = COMMANDS.find((candidate) => candidate.name === name);
    // The command words must come first; options may follow anywhere after them.
    if (command && argv.slice(0, length).join(' ') === name) return { command, rest: argv.slice(length) };
  }
  return { command: undefined, rest: argv };
}

function printTopLevel(argv: string[], io: CliIo): number {
  const [first, second] = argv;
  if (first === '--version' || first === '-v') {
    io.stdout.write(`${FOLIO_VERSION}\n`);
    return EXIT_OK;
  }
  const group = COMMANDS.filter((command) => command.name.startsWith(`${first} `));
  // Help asked for is the result, on stdout; help for a missing command is a usage error's
  // message, on stderr, so `folio > out` leaves nothing in out.
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    (first === undefined ? io.stderr : io.stdout).write(topLevelHelp(COMMANDS));
    return first === undefined ? EXIT_USAGE : EXIT_OK;
  }
  if (group.length > 0 && (second === undefined || second === '--help' || second === '-h')) {
    (second === undefined ? io.stderr : io.stdout).write(topLevelHelp(group));
    return second === undefined ? EXIT_USAGE : EXIT_OK;
  }
  const what =
    group.length === 0
      ? `unknown command "${first}"${didYouMean(
          first,
          COMMANDS.map((command) => command.name.split(' ')[0]!),
        )}`
      : second?.startsWith('-')
        ? `"${first}" needs a command: ${group.map((command) => command.name.slice(first.length + 1)).join(', ')}`
        : `unknown command "${first} ${second}"${didYouMean(
            `${first} ${second}`,
            group.map((command) => command.name),
          )}`;
  if (argv.includes('--json')) writeJsonError(io, 'invalid_usage', what);
  io.stderr.write(`folio: ${what}; see \`folio --help\`\n`);
  return EXIT_USAGE;
}

/** ` (did you mean "projects"?)` when a command is close to the mistyped `word`, else nothing. */
function didYouMean(word: string, names: string[]): string {
  const match = closestMatch(word, names);
  return match ? ` (did you mean "${match}"?)` : '';
}

/** A failure as JSON on stdout, for `--json`: the management API's error body. */
function writeJsonError(io: CliIo, code: string, message: string, details?: unknown): void {
  const error = { code, message, ...(details ? { details } : {}) };
  io.stdout.write(`${JSON.stringify({ success: false, error }, null, 2)}\n`);
}

function topLevelHelp(commands: CommandSpec[]): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  return `Folio ${FOLIO_VERSION}: the command line of a Folio server. It works on the database directly
(the same DATABASE_URL / FOLIO_DATA_DIR configuration as the server), so it runs with or without
a server, and applies pending migrations first (backup excepted).

Usage: folio <command> [options]

Commands:
${commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`).join('\n')}

Every command takes --help (or run \`folio help <command>\`), and all but start and worker --json
to print machine-readable JSON on stdout.
Exit codes: 0 ok, 1 the operation failed, 2 a usage or configuration error.
`;
}

function commandHelp(command: CommandSpec): string {
  const json = command.noJson ? '' : '  --json    print machine-readable JSON on stdout\n';
  return `Usage: ${command.usage}\n\n${command.help}\n\n${json}  --help    show this help\n`;
}

// What a shell reports for a command that SIGPIPE ended (128 + 13).
export const EXIT_BROKEN_PIPE = 141;

function reportError(error: unknown, command: CommandSpec, io: CliIo, json: boolean): number {
  const prefix = `folio ${command.name}`;
  // The reader went away (`folio export | head`): nobody is left to tell, as with cat.
  if ((error as NodeJS.ErrnoException | undefined)?.code === 'EPIPE') return EXIT_BROKEN_PIPE;
  // With --json, every failure is also JSON on stdout, as the README promises scripts.
  if (error instanceof UsageError) {
    if (json) writeJsonError(io, 'invalid_usage', error.message);
    io.stderr.write(`${prefix}: ${error.message}\nUsage: ${command.usage}\n`);
    return EXIT_USAGE;
  }
  if (error instanceof ConfigError) {
    if (json) writeJsonError(io, 'invalid_config', error.problems.join('; '));
    for (const problem of error.problems) io.stderr.write(`${prefix}: ${problem}\n`);
    return EXIT_USAGE;
  }
  const appError = error instanceof AppError ? error : undefined;
  const message = appError ? appError.message : `failed: ${reasonOf(error)}`;
  if (json) writeJsonError(io, appError?.code ?? 'internal', message, appError?.details);
  io.stderr.write(`${prefix}: ${message}\n`);
  return EXIT_FAILED;
}
