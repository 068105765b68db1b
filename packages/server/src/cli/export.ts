import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../errors.ts';
import { exportArticles } from '../services/article-transfer.ts';
import { getProject } from '../services/projects.ts';
import { type CliIo, type CommandSpec, EXIT_OK, resolveProjectId } from './context.ts';

export const exportCommand: CommandSpec = {
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
