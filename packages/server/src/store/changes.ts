import { type Kysely, sql, type Transaction } from 'kysely';
import type { ArticleTombstoneRow, Database } from '../db/tables.ts';

/**
 * Takes the project's next change number and bumps its content version (cached answers go
 * stale). Must run after the project's write lock is taken (`lockProject`): writers of one
 * project then take numbers one at a time and commit in that order, so a reader never sees
 * number 11 committed while 10 is not.
 */
export async function takeChangeSeq(trx: Transaction<Database>, projectId: string): Promise<number> {
  const row = await trx
    .updateTable('projects')
    .set({
      change_seq: sql<number>`change_seq + 1`,
      content_version: sql<number>`content_version + 1`,
    })
    .where('id', '=', projectId)
    .returning('change_seq')
    .executeTakeFirstOrThrow();
  return Number(row.change_seq);
}

/**
 * Gives every published article of the project a change number of its own, in id order, and
 * bumps the content version: for a change to the project's site settings, which changes what
 * each of them serves. One statement (UPDATE … FROM, both dialects).
 */
export async function restampPublished(trx: Transaction<Database>, projectId: string): Promise<void> {
  const { change_seq: base } = await trx
    .selectFrom('projects')
    .select('change_seq')
    .where('id', '=', projectId)
    .executeTakeFirstOrThrow();
  const result = await sql`
    update articles set change_seq = ${base} + numbered.n
    from (
      select id, row_number() over (order by id) as n
      from articles where project_id = ${projectId} and published = 1
    ) numbered
    where articles.project_id = ${projectId} and articles.id = numbered.id`.execute(trx);
  const stamped = Number(result.numAffectedRows ?? 0);
  await trx
    .updateTable('projects')
    .set({
      change_seq: sql<number>`change_seq + ${stamped}`,
      content_version: sql<number>`content_version + 1`,
    })
    .where('id', '=', projectId)
    .execute();
}

export async function insertTombstone(trx: Transaction<Database>, row: ArticleTombstoneRow): Promise<void> {
  await trx.insertInto('article_tombstones').values(row).execute();
}

/** Removes and returns the tombstone of `id`: an article created again under the same id. */
export async function takeTombstone(
  trx: Transaction<Database>,
  projectId: string,
  id: string,
): Promise<ArticleTombstoneRow | undefined> {
  return trx
    .deleteFrom('article_tombstones')
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** One entry of the feed as stored: an article row (served or not) or a tombstone. */
export interface ChangeRow {
  id: string;
  seq: number;
  /** 1 for a published article: an upsert; else a delete. */
  published: number;
  /** The last served slug (what a delete names). */
  slug: string | null;
  /** The served JSON of a published article; null for deletes, and for rows older than it. */
  served: string | null;
}

/**
 * Up to `limit` changes of the project with numbers above `after`, in number order. Deletes
 * numbered `skipDeletesUpTo` or lower are left out: during a first sync, the replica never held
 * what they remove. Articles and tombstones are read in one statement, so from one snapshot.
 */
export async function listChangesAfter(
  db: Kysely<Database>,
  projectId: string,
  page: { after: number; skipDeletesUpTo: number; limit: number },
): Promise<ChangeRow[]> {
  const articles = db
    .selectFrom('articles')
    .select(['id', 'change_seq as seq', 'published', 'served_slug as slug', 'served'])
    .where('project_id', '=', projectId)
    .where('change_seq', '>', page.after)
    .where((eb) => eb.or([eb('published', '=', 1), eb('change_seq', '>', page.skipDeletesUpTo)]));
  const tombstones = db
    .selectFrom('article_tombstones')
    .select([
      'id',
      'change_seq as seq',
      sql<number>`0`.as('published'),
      'slug',
      sql<string | null>`null`.as('served'),
    ])
    .where('project_id', '=', projectId)
    .where('change_seq', '>', Math.max(page.after, page.skipDeletesUpTo));
  const rows = await articles.unionAll(tombstones).orderBy('seq').limit(page.limit).execute();
  return rows.map((row) => ({ ...row, seq: Number(row.seq), published: Number(row.published) }));
}

/**
 * Deletes up to `batch` tombstones older than `before`; returns how many. Small batches keep
 * each statement short, so writers that insert tombstones never wait long behind it.
 */
export async function pruneTombstones(db: Kysely<Database>, before: number, batch: number): Promise<number> {
  const result = await sql`
    delete from article_tombstones where (project_id, id) in (
      select project_id, id from article_tombstones where deleted_at < ${before} limit ${batch}
    )`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
