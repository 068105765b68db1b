import type { Kysely } from 'kysely';
import type { Database, PreviewTokenRow } from '../db/tables.ts';

export async function insertPreviewToken(db: Kysely<Database>, row: PreviewTokenRow): Promise<void> {
  await db.insertInto('preview_tokens').values(row).execute();
}

/** The token with this hash, expired or not. */
export async function findPreviewToken(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<PreviewTokenRow | undefined> {
  return db.selectFrom('preview_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** A deleted article's tokens stop working with it. */
export async function deletePreviewTokens(
  db: Kysely<Database>,
  projectId: string,
  articleId: string,
): Promise<void> {
  await db
    .deleteFrom('preview_tokens')
    .where('project_id', '=', projectId)
    .where('article_id', '=', articleId)
    .execute();
}

/** Deletes tokens that expired before `before`; returns how many. */
export async function pruneExpiredPreviewTokens(db: Kysely<Database>, before: number): Promise<number> {
  const result = await db.deleteFrom('preview_tokens').where('expires_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
