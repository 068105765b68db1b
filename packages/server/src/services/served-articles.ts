import type { Transaction } from 'kysely';
import type { Database, ProjectRow } from '../db/tables.ts';
import * as articles from '../store/articles.ts';
import { servedJson } from './article-view.ts';

const REFRESH_BATCH = 500;

/**
 * Rebuilds the stored served JSON of every article of a project, in the caller's transaction:
 * canonical paths, jsonLd URLs and og images depend on the project's site settings.
 */
export async function refreshServedArticles(trx: Transaction<Database>, project: ProjectRow): Promise<void> {
  let after: string | undefined;
  for (;;) {
    const rows = await articles.listArticlesAfterId(trx, project.id, after, REFRESH_BATCH);
    for (const row of rows) await articles.setServed(trx, project.id, row.id, servedJson(row, project));
    if (rows.length < REFRESH_BATCH) return;
    after = rows[rows.length - 1]!.id;
  }
}
