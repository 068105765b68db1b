import type { ArticleInput } from '@folio/schema';
import { AppError } from '../errors.ts';
import * as articles from '../store/articles.ts';
import { upsertArticle, upsertArticleIn } from './articles.ts';
import { type ServiceDeps, transact } from './deps.ts';
import { requireProject } from './projects.ts';

/** One article of an import, already validated, with where it came from. */
export interface ImportItem {
  line: number;
  id: string;
  input: ArticleInput;
}

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
 * Writes validated articles through the same upsert as the ingest route. Atomic: every item in
 * one transaction, and the first failure (a taken slug, say) rolls all of them back and is
 * the only result. Otherwise each item commits on its own and failures are reported beside
 * the successes.
 */
export async function importArticles(
  deps: ServiceDeps,
  projectId: string,
  items: ImportItem[],
  options: ImportOptions,
): Promise<ImportResult[]> {
  await requireProject(deps, projectId);
  if (!options.atomic) return importEach(deps, projectId, items, options);
  let failed: ImportResult | undefined;
  try {
    return await transact(deps, async (trx) => {
      const results: ImportResult[] = [];
      for (const item of items) {
        try {
          const result = await upsertArticleIn(trx, deps.now(), projectId, item.id, item.input);
          results.push({ line: item.line, id: item.id, outcome: outcomeOf(result) });
        } catch (error) {
          if (error instanceof AppError) failed = { line: item.line, id: item.id, error };
          throw error;
        }
        options.onProgress?.(results.length);
      }
      return results;
    });
  } catch (error) {
    if (failed) return [failed];
    throw error;
  }
}

async function importEach(
  deps: ServiceDeps,
  projectId: string,
  items: ImportItem[],
  options: ImportOptions,
): Promise<ImportResult[]> {
  const results: ImportResult[] = [];
  for (const item of items) {
    try {
      const result = await upsertArticle(deps, projectId, item.id, item.input);
      results.push({ line: item.line, id: item.id, outcome: outcomeOf(result) });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      results.push({ line: item.line, id: item.id, error });
    }
    options.onProgress?.(results.length);
  }
  return results;
}

function outcomeOf(result: { created: boolean; changed: boolean }): ImportOutcome {
  if (result.created) return 'created';
  return result.changed ? 'updated' : 'unchanged';
}

/** An article as an import line: what was ingested and its state, so export → import round-trips. */
export interface ExportedArticle extends ArticleInput {
  id: string;
  published: boolean;
}

const EXPORT_PAGE_SIZE = 200;

/** Every article of the project, by id, a page at a time. */
export async function* exportArticles(deps: ServiceDeps, projectId: string): AsyncGenerator<ExportedArticle> {
  await requireProject(deps, projectId);
  let afterId: string | undefined;
  for (;;) {
    const rows = await articles.listArticlesAfterId(deps.db, projectId, afterId, EXPORT_PAGE_SIZE);
    for (const row of rows) {
      yield {
        id: row.id,
        slug: row.slug,
        title: row.title,
        blocks: JSON.parse(row.blocks),
        seo: JSON.parse(row.seo),
        related: JSON.parse(row.related),
        published: row.published === 1,
      };
    }
    if (rows.length < EXPORT_PAGE_SIZE) return;
    afterId = rows.at(-1)!.id;
  }
}
