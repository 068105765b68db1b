import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../errors.ts';
import { importArticles } from '../services/article-transfer.ts';
import { getProject } from '../services/projects.ts';
import { type CommandSpec, EXIT_FAILED, EXIT_OK, resolveProjectId, UsageError } from './context.ts';
import { rehearseImport } from './import-dry-run.ts';
import { checkLines, type InvalidLine, itemsOf } from './import-lines.ts';
import { createProgress } from './progress.ts';
import { createInputValidator } from './validate.ts';

export interface ImportSummary {
  project: string;
  file: string;
  /** False when nothing was written: a line was invalid (without --continue-on-error), or --dry-run. */
  written: boolean;
  /** With --dry-run: the counts say what the import would do; nothing was written. */
  dryRun: boolean;
  created: number;
  updated: number;
  unchanged: number;
  invalid: number;
  invalidLines: InvalidLine[];
}

export const importCommand: CommandSpec = {
  name: 'import',
  summary: 'Import articles from an NDJSON file',
  usage: 'folio import FILE [--project ID] [--continue-on-error] [--dry-run] [--json]',
  help: `Creates or replaces articles from FILE, one JSON object a line:
  { "id", "slug", "title", "blocks", "seo"?, "related"?, "published"?, "publishAt"?, "unpublishAt"? }
A line with "draft": true saves the article's draft instead, as the draft PUT does: what is
served does not change, and an article that does not exist yet is created unpublished:
  { "id", "draft": true, "slug", "title", "blocks", "seo"?, "related"?, "publishAt"?, "unpublishAt"? }
An id may have one article line and one draft line (\`folio export\` writes both).
"publishAt" and "unpublishAt" schedule the article (ISO 8601 times with a zone, such as
2026-11-20T10:00:00Z); a time that has passed applies at once, null clears it.

Each line is checked against the same JSON Schema as the management API's article PUT (or
draft PUT), and written through the same service, so an import is idempotent by id: running it
again reports every line unchanged. Blank lines are skipped.

Every line is checked before anything is written. Without --continue-on-error, one invalid
line (or one that cannot be written, e.g. a slug another article holds) means nothing is
written at all. With it, the valid lines are written and the others reported.

The summary counts created, updated, unchanged and invalid lines and names each invalid line
(a draft line of an article that exists counts as updated when it changes the draft).
An id on two lines is an error in the file: the second line is reported, not written.
The exit code is 0 when every line was imported and 1 otherwise; a file with no line to import
(empty, or only blank lines) is an error too.

Options:
  --project ID          the project to import into (default: the only project, if there is one)
  --continue-on-error   write the valid lines even when some lines are invalid
  --dry-run             check every line, including the ones that would fail when written (a
                        slug another article holds), and report what the import would do;
                        nothing is written`,
  options: {
    project: { type: 'string' },
    'continue-on-error': { type: 'boolean' },
    'dry-run': { type: 'boolean' },
  },
  positionals: ['FILE'],
  async run(context, { values, positionals }) {
    if (positionals[0] === '-') {
      throw new UsageError(
        'FILE must be a file, not standard input (-): import reads it twice, to check every line and then to write; save the input to a file first',
      );
    }
    const file = path.resolve(context.io.cwd ?? process.cwd(), positionals[0]!);
    const size = sizeOf(file);
    const progress = createProgress(context.io.stderr);
    const validator = createInputValidator(context.config().baseUrl);
    // Read twice, never held whole: checked first, then read again to write.
    const checked = await checkLines(file, validator, (done, total) =>
      progress.update('checking', done, total),
    );
    if (checked.filled === 0) {
      progress.done();
      throw new AppError(
        'invalid_body',
        `The file ${file} ${size === 0 ? 'is empty' : 'has only blank lines'}: nothing to import.`,
      );
    }
    const { invalid } = checked;
    const deps = await context.deps();
    const projectId = (await getProject(deps, await resolveProjectId(deps, values.project as string))).id;
    const items = () => itemsOf(file, validator, checked);
    const total = checked.importable;

    const continueOnError = values['continue-on-error'] === true;
    const dryRun = values['dry-run'] === true;
    const summary: ImportSummary = {
      project: projectId,
      file,
      written: false,
      dryRun,
      created: 0,
      updated: 0,
      unchanged: 0,
      invalid: 0,
      invalidLines: invalid,
    };
    if (dryRun || invalid.length === 0 || continueOnError) {
      const results = dryRun
        ? await rehearseImport(deps, projectId, items(), (done) => progress.update('dry run', done, total))
        : await importArticles(deps, projectId, items(), {
            atomic: !continueOnError,
            onProgress: (done) => progress.update('importing', done, total),
          });
      for (const result of results) {
        if ('error' in result) invalid.push(invalidLine(result.line, result.id, result.error));
        else summary[result.outcome] += 1;
      }
      summary.written = !dryRun && (continueOnError || !results.some((result) => 'error' in result));
    }
    progress.done();
    invalid.sort((a, b) => a.line - b.line);
    summary.invalid = invalid.length;
    context.print(summary, () => describeSummary(summary, continueOnError));
    if (invalid.length === 0) return EXIT_OK;
    context.io.stderr.write(`folio import: ${describeFailure(summary)}\n`);
    return EXIT_FAILED;
  },
};

function describeFailure(summary: ImportSummary): string {
  const lines = summary.invalidLines.map((entry) => entry.line);
  const plural = lines.length > 1 ? 's' : '';
  // "(line 2)", not "(2)": beside the count, a bare number reads as a second count.
  const shown = `line${plural} ${lines.slice(0, 10).join(', ')}${lines.length > 10 ? ', …' : ''}`;
  if (summary.dryRun) {
    return `${lines.length} line${plural} would not be imported (${shown}); dry run, nothing was written`;
  }
  return `${lines.length} line${plural} not imported (${shown})${summary.written ? '' : '; nothing was written'}`;
}

/** The file's size in bytes; a file that cannot be read is a clear error, before any work. */
function sizeOf(file: string): number {
  try {
    fs.accessSync(file, fs.constants.R_OK);
    const stat = fs.statSync(file);
    if (stat.isDirectory()) throw Object.assign(new Error('a directory'), { code: 'EISDIR' });
    return stat.size;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new AppError('not_found', `The file ${file} does not exist.`);
    throw new AppError('invalid_body', `The file ${file} cannot be read (${code ?? String(error)}).`);
  }
}

function invalidLine(line: number, id: string, error: AppError): InvalidLine {
  return { line, id, code: error.code, message: error.message, details: error.details ?? [] };
}

function describeSummary(summary: ImportSummary, continueOnError: boolean): string {
  const { project, created, updated, unchanged, invalid } = summary;
  const counts = `${created} created, ${updated} updated, ${unchanged} unchanged, ${invalid} invalid.`;
  const lines = [
    summary.dryRun
      ? `Dry run, nothing was written. Importing into project ${project} would give: ${counts}`
      : `${summary.written ? 'Imported into' : 'Nothing was imported into'} project ${project}: ${counts}`,
  ];
  for (const entry of summary.invalidLines) {
    lines.push(`  line ${entry.line}${entry.id ? ` (id ${entry.id})` : ''}: ${entry.message}`);
  }
  const next = nextStep(summary, continueOnError);
  if (next) lines.push(next);
  return lines.join('\n');
}

function nextStep(summary: ImportSummary, continueOnError: boolean): string | undefined {
  if (summary.dryRun) {
    if (summary.invalid === 0) return 'Every line can be imported: run again without --dry-run.';
    if (continueOnError) return 'With --continue-on-error, the other lines would be written.';
    return 'As it is, the import would write nothing: fix these lines, or add --continue-on-error.';
  }
  if (!summary.written && summary.invalid > 0 && !continueOnError) {
    return 'Fix these lines, or run again with --continue-on-error to import the valid ones.';
  }
  return undefined;
}
