import type { ArticleInput, DraftInput } from '@folio/schema';
import type { Transaction } from 'kysely';
import type { ArticleRow, Database } from '../db/tables.ts';
import { AppError } from '../errors.ts';
import * as articles from '../store/articles.ts';
import { inWriteBatch } from '../store/project-lock.ts';
import { draftOf } from './article-view.ts';
import { upsertArticleIn } from './articles.ts';
import { type ServiceDeps, transact } from './deps.ts';
import { saveDraftIn } from './drafts.ts';
import { isoTime } from './iso-time.ts';
import { inRuns } from './json-runs.ts';
import { requireProject } from './projects.ts';

/**
 * One line of an import, already validated, with where it came from: an article (the live
 * write, as `PUT …/articles/{id}`) or, marked `draft: true`, a draft save (`PUT …/draft`).
 */
export type ImportItem =
  | { line: number; id: string; draft?: false; input: ArticleInput }
  | { line: number; id: string; draft: true; input: DraftInput };

export type ImportOutcome = 'created' | 'updated' | 'unchanged';

export type ImportResult =
  | { line: number; id: string; outcome: ImportOutcome }
  | { line: number; id: string; error: AppError };

export interface ImportOptions {
  /** All or nothing: one transaction, rolled back at the first failure. */
  atomic: boolean;
  /** Called after each item is written, with how many are done. */
  onProgress?: (done: number) => void;
}

/**
 * Writes validated lines through the services of the article and draft PUTs. Atomic: every item
 * in one transaction and one write batch (`inWriteBatch`), and the first failure (a taken slug,
 * say) rolls all of them back and is the only result. Otherwise each item commits on its own and
 * failures are reported beside the successes.
 */
export async function importArticles(
  deps: ServiceDeps,
  projectId: string,
  items: Iterable<ImportItem> | AsyncIterable<ImportItem>,
  options: ImportOptions,
): Promise<ImportResult[]> {
  await requireProject(deps, projectId);
  if (!options.atomic) return importEach(deps, projectId, items, options);
  let failed: ImportResult | undefined;
  try {
    return await transact(deps, (trx) =>
      inWriteBatch(trx, projectId, async () => {
        const results: ImportResult[] = [];
        for await (const item of items) {
          try {
            const outcome = await importItemIn(trx, deps.now, projectId, item);
            results.push({ line: item.line, id: item.id, outcome });
          } catch (error) {
            if (error instanceof AppError) failed = { line: item.line, id: item.id, error };
            throw error;
          }
          options.onProgress?.(results.length);
        }
        return results;
      }),
    );
  } catch (error) {
    if (failed) return [failed];
    throw error;
  }
}

async function importEach(
  deps: ServiceDeps,
  projectId: string,
  items: Iterable<ImportItem> | AsyncIterable<ImportItem>,
  options: ImportOptions,
): Promise<ImportResult[]> {
  const results: ImportResult[] = [];
  for await (const item of items) {
    try {
      const outcome = await transact(deps, (trx) => importItemIn(trx, deps.now, projectId, item));
      results.push({ line: item.line, id: item.id, outcome });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      results.push({ line: item.line, id: item.id, error });
    }
    options.onProgress?.(results.length);
  }
  return results;
}

/** Writes one import line in the caller's transaction, through the service its API route uses. */
export async function importItemIn(
  trx: Transaction<Database>,
  clock: () => number,
  projectId: string,
  item: ImportItem,
): Promise<ImportOutcome> {
  const result = item.draft
    ? await saveDraftIn(trx, clock, projectId, item.id, item.input)
    : await upsertArticleIn(trx, clock, projectId, item.id, item.input);
  if (result.created) return 'created';
  return result.changed ? 'updated' : 'unchanged';
}

/**
 * An article as import lines, so export → import round-trips: what was ingested and its state;
 * then, when it has a draft, a second line with `draft: true` holding the draft. The schedule
 * goes on the article's last line: a time that has passed by the import then publishes the
 * draft with the rest, as it would have here.
 */
export type ExportedLine = ExportedArticle | ExportedDraft;

export interface ExportedArticle extends ArticleInput {
  id: string;
  published: boolean;
}

export interface ExportedDraft extends DraftInput {
  id: string;
  draft: true;
}

const EXPORT_PAGE_SIZE = 200;

/** Every article of the project by id, a page at a time, each followed by its draft if any. */
export async function* exportArticles(deps: ServiceDeps, projectId: string): AsyncGenerator<ExportedLine> {
  await requireProject(deps, projectId);
  let afterId: string | undefined;
  for (;;) {
    const ids = await articles.listSizedIdsAfterId(deps.db, projectId, afterId, EXPORT_PAGE_SIZE);
    // A run of articles at a time: a page of large ones, parsed, outgrows the heap.
    for (const run of inRuns(ids)) {
      for (const row of await articles.rowsOfIds(deps.db, projectId, run)) {
        const draft = draftOf(row);
        const live = { id: row.id, ...exportedContent(row), published: row.published === 1 };
        if (!draft) {
          yield { ...live, ...exportedSchedule(row) };
          continue;
        }
        yield live;
        yield { id: row.id, draft: true, ...exportedContent(draft), ...exportedSchedule(row) };
      }
    }
    if (ids.length < EXPORT_PAGE_SIZE) return;
    afterId = ids.at(-1)!.id;
  }
}

// Only the times that are set, so an article without a schedule exports as it did before
// schedules existed, and a line without them keeps the schedule an article already has.
function exportedSchedule(row: Pick<ArticleRow, 'publish_at' | 'unpublish_at'>): {
  publishAt?: string;
  unpublishAt?: string;
} {
  return {
    ...(row.publish_at === null ? {} : { publishAt: isoTime(row.publish_at) }),
    ...(row.unpublish_at === null ? {} : { unpublishAt: isoTime(row.unpublish_at) }),
  };
}

function exportedContent(stored: Pick<ArticleRow, 'slug' | 'title' | 'blocks' | 'seo' | 'related'>) {
  return {
    slug: stored.slug,
    title: stored.title,
    blocks: JSON.parse(stored.blocks),
    seo: JSON.parse(stored.seo),
    related: JSON.parse(stored.related),
  };
}
