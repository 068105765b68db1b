import type { Transaction } from 'kysely';
import type { Database, ProjectRow } from '../db/tables.ts';
import * as articles from '../store/articles.ts';
import { servedJson } from './article-view.ts';

const REFRESH_BATCH = 500;

/**
 * Rebuilds the stored served JSON of every article of a project, in the caller's transaction:
 * canonical paths, jsonLd URLs and og images depend on the project's site settings. Returns the
 * published articles, whose served content that changed.
 */
export async function refreshServedArticles(
  trx: Transaction<Database>,
  project: ProjectRow,
): Promise<Array<{ id: string; slug: string }>> {
  const published: Array<{ id: string; slug: string }> = [];
  let after: string | undefined;
  for (;;) {
    const rows = await articles.listArticlesAfterId(trx, project.id, after, REFRESH_BATCH);
    await articles.setServed(
      trx,
      project.id,
      rows.map((row) => ({ id: row.id, served: servedJson(row, project) })),
    );
    for (const row of rows) if (row.published === 1) published.push({ id: row.id, slug: row.slug });
    if (rows.length < REFRESH_BATCH) return published;
    after = rows[rows.length - 1]!.id;
  }
}
