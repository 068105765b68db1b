import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import type { ArticleInput } from '@folio/schema';
import type { ErrorDetail } from '../errors.ts';
import { AppError } from '../errors.ts';
import {
  exportArticles,
  type ImportItem,
  type ImportOutcome,
  importArticles,
} from '../services/article-transfer.ts';
import { getProject } from '../services/projects.ts';
import { type CliIo, type CommandSpec, EXIT_FAILED, EXIT_OK, resolveProjectId } from './context.ts';
import { createProgress } from './progress.ts';
import { createInputValidator, describeDetails, type InputValidator } from './validate.ts';

/** A line that was not imported, and why. */
export interface InvalidLine {
  line: number;
  id: string | null;
  code: string;
  message: string;
  details: ErrorDetail[];
}

export interface ImportSummary {
  project: string;
  file: string;
  /** False when nothing was written because a line was invalid (without --continue-on-error). */
  written: boolean;
  created: number;
  updated: number;
  unchanged: number;
  invalid: number;
  invalidLines: InvalidLine[];
}

const importCommand: CommandSpec = {
  name: 'import',
  summary: 'Import articles from an NDJSON file',
  usage: 'folio import FILE [--project ID] [--continue-on-error] [--json]',
  help: `Creates or replaces articles from FILE, one JSON object a line:
  { "id", "slug", "title", "blocks", "seo"?, "related"?, "published"? }
Each line is checked against the same JSON Schema as the management API's article PUT, and
written through the same service, so an import is idempotent by id: running it again reports
every article unchanged. Blank lines are skipped.

Every line is checked before anything is written. Without --continue-on-error, one invalid
line (or one that cannot be written, e.g. a slug another article holds) means nothing is
written at all. With it, the valid lines are written and the others reported.

The summary counts created, updated, unchanged and invalid lines and names each invalid line.
The exit code is 0 when every line was imported and 1 otherwise.

Options:
  --project ID          the project to import into (default: the only project, if there is one)
  --continue-on-error   write the valid lines even when some lines are invalid`,
  options: { project: { type: 'string' }, 'continue-on-error': { type: 'boolean' } },
  positionals: ['FILE'],
  async run(context, { values, positionals }) {
    const file = path.resolve(context.io.cwd ?? process.cwd(), positionals[0]!);
    const text = readInput(file);
    const deps = await context.deps();
    const projectId = (await getProject(deps, await resolveProjectId(deps, values.project as string))).id;
    const progress = createProgress(context.io.stderr);
    const validator = createInputValidator(context.config().baseUrl);
    const { items, invalid } = parseLines(text, validator, (done, total) =>
      progress.update('checking', done, total),
    );

    const continueOnError = values['continue-on-error'] === true;
    const summary: ImportSummary = {
      project: projectId,
      file,
      written: false,
      created: 0,
      updated: 0,
      unchanged: 0,
      invalid: 0,
      invalidLines: invalid,
    };
    if (invalid.length === 0 || continueOnError) {
      const results = await importArticles(deps, projectId, items, {
        atomic: !continueOnError,
        onProgress: (done) => progress.update('importing', done, items.length),
      });
      for (const result of results) {
        if ('error' in result) invalid.push(invalidLine(result.line, result.id, result.error));
        else summary[result.outcome satisfies ImportOutcome] += 1;
      }
      summary.written = continueOnError || !results.some((result) => 'error' in result);
    }
    progress.done();
    invalid.sort((a, b) => a.line - b.line);
    summary.invalid = invalid.length;
    context.print(summary, () => describeSummary(summary, continueOnError));
    if (invalid.length > 0) {
      context.io.stderr.write(
        `folio import: ${invalid.length} line${invalid.length > 1 ? 's' : ''} not imported (${invalid
          .slice(0, 10)
          .map((entry) => entry.line)
          .join(
            ', ',
          )}${invalid.length > 10 ? ', …' : ''})${summary.written ? '' : '; nothing was written'}\n`,
      );
      return EXIT_FAILED;
    }
    return EXIT_OK;
  },
};

function readInput(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new AppError('not_found', `The file ${file} does not exist.`);
    throw new AppError('invalid_body', `The file ${file} cannot be read (${code ?? String(error)}).`);
  }
}

/** Checks every line; valid ones become import items, the others are reported by line number. */
function parseLines(
  text: string,
  validator: InputValidator,
  onProgress: (done: number, total: number) => void,
): { items: ImportItem[]; invalid: InvalidLine[] } {
  const lines = text.split(/\r?\n/);
  const items: ImportItem[] = [];
  const invalid: InvalidLine[] = [];
  for (const [index, raw] of lines.entries()) {
    onProgress(index + 1, lines.length);
    if (raw.trim() === '') continue;
    const line = index + 1;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      const message = `is not valid JSON: ${(error as Error).message}`;
      invalid.push({ line, id: null, code: 'invalid_body', message, details: [{ path: '/', message }] });
      continue;
    }
    const details = validator.articleLineProblems(value);
    const id = (value as { id?: unknown } | null)?.id;
    if (details.length > 0) {
      const shownId = typeof id === 'string' ? id : null;
      invalid.push({ line, id: shownId, code: 'invalid_body', message: describeDetails(details), details });
      continue;
    }
    const { id: _id, ...input } = value as ArticleInput & { id: string };
    items.push({ line, id: id as string, input });
  }
  return { items, invalid };
}

function invalidLine(line: number, id: string, error: AppError): InvalidLine {
  return { line, id, code: error.code, message: error.message, details: error.details ?? [] };
}

function describeSummary(summary: ImportSummary, continueOnError: boolean): string {
  const lines = [
    `${summary.written ? 'Imported into' : 'Nothing was imported into'} project ${summary.project}: ` +
      `${summary.created} created, ${summary.updated} updated, ${summary.unchanged} unchanged, ${summary.invalid} invalid.`,
  ];
  for (const entry of summary.invalidLines) {
    lines.push(`  line ${entry.line}${entry.id ? ` (id ${entry.id})` : ''}: ${entry.message}`);
  }
  if (!summary.written && summary.invalid > 0 && !continueOnError) {
    lines.push('Fix these lines, or run again with --continue-on-error to import the valid ones.');
  }
  return lines.join('\n');
}

const exportCommand: CommandSpec = {
  name: 'export',
  summary: 'Export articles as NDJSON',
  usage: 'folio export [--project ID] [--output FILE] [--json]',
  help: `Writes every article of the project, published or not, one JSON object a line, in the
format \`folio import\` reads: { id, slug, title, blocks, seo, related, published }. Importing
the export into an empty project gives the same articles; importing it again into the same
project reports every article unchanged. Times (publishedAt, updatedAt) are not exported:
the importing server sets its own.

Options:
  --project ID    the project to export (default: the only project, if there is one)
  --output FILE   write to FILE (replaced only once the export is complete) instead of stdout;
                  with --json, a summary { project, output, articles } is printed`,
  options: { project: { type: 'string' }, output: { type: 'string' } },
  async run(context, { values }) {
    const deps = await context.deps();
    const projectId = (await getProject(deps, await resolveProjectId(deps, values.project as string))).id;
    const output = values.output as string | undefined;
    if (output === undefined) {
      await writeArticles(exportArticles(deps, projectId), context.io.stdout);
      return EXIT_OK;
    }
    const file = path.resolve(context.io.cwd ?? process.cwd(), output);
    const count = await exportToFile(exportArticles(deps, projectId), file);
    context.print(
      { project: projectId, output: file, articles: count },
      () => `Exported ${count} article${count === 1 ? '' : 's'} of project ${projectId} to ${file}.`,
    );
    return EXIT_OK;
  },
};

async function writeArticles(articles: AsyncIterable<unknown>, stream: CliIo['stdout']): Promise<number> {
  let count = 0;
  for await (const article of articles) {
    count += 1;
    if (!stream.write(`${JSON.stringify(article)}\n`)) await once(stream, 'drain');
  }
  return count;
}

// Written beside the target and renamed at the end, so a failed export never leaves half a file.
async function exportToFile(articles: AsyncIterable<unknown>, file: string): Promise<number> {
  const partial = `${file}.partial-${process.pid}`;
  // Opened here so a missing directory fails at once, with the file's name.
  const stream = fs.createWriteStream(partial, { fd: openForWriting(partial, file) });
  let failure: Error | undefined;
  stream.on('error', (error) => {
    failure = error;
  });
  try {
    const count = await writeArticles(articles, stream);
    await new Promise<void>((resolve) => stream.end(resolve));
    if (failure) throw failure;
    fs.renameSync(partial, file);
    return count;
  } catch (error) {
    stream.destroy();
    fs.rmSync(partial, { force: true });
    throw error;
  }
}

function openForWriting(partial: string, file: string): number {
  try {
    return fs.openSync(partial, 'w');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new AppError('invalid_body', `Cannot write ${file} (${code}).`);
  }
}

export const transferCommands = [importCommand, exportCommand];
