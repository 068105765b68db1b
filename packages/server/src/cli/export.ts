import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../errors.ts';
import { whilePartial } from '../partial-files.ts';
import { type ExportedLine, exportArticles } from '../services/article-transfer.ts';
import { getProject } from '../services/projects.ts';
import { type CliIo, type CommandSpec, EXIT_OK, resolveProjectId } from './context.ts';

export const exportCommand: CommandSpec = {
  name: 'export',
  summary: 'Export articles as NDJSON',
  usage: 'folio export [--project ID] [--output FILE] [--json]',
  help: `Writes every article of the project, published or not, one JSON object a line, in the
format \`folio import\` reads: { id, slug, title, blocks, seo, related, published }. An article
with a draft gets a second line, { id, draft: true, slug, title, blocks, seo, related }, and
a scheduled one its publishAt / unpublishAt (on its last line). Importing the export into an
empty project gives the same articles, drafts and schedules; importing it again into the same
project reports every line unchanged. Other times (publishedAt, updatedAt) are not exported:
the importing server sets its own.

Options:
  --project ID    the project to export (default: the only project, if there is one)
  --output FILE   write to FILE (replaced only once the export is complete) instead of stdout;
                  with --json, a summary { project, output, articles, drafts } is printed`,
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
    const { articles, drafts } = await exportToFile(exportArticles(deps, projectId), file);
    context.print({ project: projectId, output: file, articles, drafts }, () => {
      const withDrafts = drafts === 0 ? '' : ` (${drafts} with a draft)`;
      return `Exported ${articles} article${articles === 1 ? '' : 's'}${withDrafts} of project ${projectId} to ${file}.`;
    });
    return EXIT_OK;
  },
};

interface ExportCounts {
  articles: number;
  drafts: number;
}

async function writeArticles(
  lines: AsyncIterable<ExportedLine>,
  stream: CliIo['stdout'],
): Promise<ExportCounts> {
  const counts = { articles: 0, drafts: 0 };
  for await (const line of lines) {
    counts['draft' in line ? 'drafts' : 'articles'] += 1;
    if (!stream.write(`${JSON.stringify(line)}\n`)) await once(stream, 'drain');
  }
  return counts;
}

// Written beside the target and renamed at the end, so a failed export never leaves half a file.
async function exportToFile(lines: AsyncIterable<ExportedLine>, file: string): Promise<ExportCounts> {
  const partial = `${file}.partial-${process.pid}`;
  // Opened here so a missing directory fails at once, with the file's name.
  const stream = fs.createWriteStream(partial, { fd: openForWriting(partial, file) });
  const written = whilePartial(partial);
  let failure: Error | undefined;
  stream.on('error', (error) => {
    failure = error;
  });
  try {
    const counts = await writeArticles(lines, stream);
    await new Promise<void>((resolve) => stream.end(resolve));
    if (failure) throw failure;
    fs.renameSync(partial, file);
    return counts;
  } catch (error) {
    stream.destroy();
    fs.rmSync(partial, { force: true });
    throw error;
  } finally {
    written();
  }
}

function openForWriting(partial: string, file: string): number {
  try {
    return fs.openSync(partial, 'w');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    // Said as backup says it: the one cause an operator meets most often, and its fix.
    if (code === 'ENOENT' && !fs.existsSync(path.dirname(file))) {
      const why = `Cannot write ${file}: the directory ${path.dirname(file)} does not exist (create it first).`;
      throw new AppError('invalid_body', why);
    }
    throw new AppError('invalid_body', `Cannot write ${file} (${code}).`);
  }
}
