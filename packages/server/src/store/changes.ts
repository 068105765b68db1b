import { type Kysely, type SelectQueryBuilder, sql, type Transaction } from 'kysely';
import type { ArticleTombstoneRow, Database, PreviewTombstoneRow } from '../db/tables.ts';
import { contentBytes, servedIfShort } from './articles.ts';

export async function insertTombstone(trx: Transaction<Database>, row: ArticleTombstoneRow): Promise<void> {
  await trx.insertInto('article_tombstones').values(row).execute();
}

export async function insertPreviewTombstone(
  trx: Transaction<Database>,
  row: PreviewTombstoneRow,
): Promise<void> {
  await trx.insertInto('preview_tombstones').values(row).execute();
}

/** Removes the preview tombstone of `id`: an article created again under the same id. */
export async function dropPreviewTombstone(
  trx: Transaction<Database>,
  projectId: string,
  id: string,
): Promise<void> {
  await trx
    .deleteFrom('preview_tombstones')
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .execute();
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
  /**
   * The served JSON of a published article when short (`ServedRow`); null for deletes, for a
   * long one and for rows older than the column.
   */
  served: string | null;
  /** The served JSON's length; null for deletes and for rows older than the column. */
  bytes: number | null;
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
    .select(['id', 'change_seq as seq', 'published', 'served_slug as slug', ...servedIfShort()])
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
      // Typed: PostgreSQL takes a bare null in a subquery of a UNION for text.
      sql<number | null>`cast(null as integer)`.as('bytes'),
    ])
    .where('project_id', '=', projectId)
    .where('change_seq', '>', Math.max(page.after, page.skipDeletesUpTo));
  const rows = await firstInOrder(db, articles, tombstones, page.limit);
  return rows.map((row) => ({ ...row, seq: Number(row.seq), published: Number(row.published) }));
}

/** One entry of the preview feed: an article row (any state) or a preview tombstone. */
export interface PreviewChangeRow {
  id: string;
  seq: number;
  /** 1 for an article still there: an upsert; 0 for a deleted one. */
  present: number;
  /** The deleted article's slug in the preview perspective. */
  slug: string | null;
  /** The stored bytes of an article still there (`contentBytes`): what reading it costs. */
  bytes: number | null;
}

/**
 * Up to `limit` changes of the preview perspective with numbers above `after`, in number order;
 * deletes numbered `skipDeletesUpTo` or lower are left out (a first sync), as in
 * `listChangesAfter`. The articles' content is read afterwards, page by page.
 */
export async function listPreviewChangesAfter(
  db: Kysely<Database>,
  projectId: string,
  page: { after: number; skipDeletesUpTo: number; limit: number },
): Promise<PreviewChangeRow[]> {
  const articles = db
    .selectFrom('articles')
    .select([
      'id',
      'preview_seq as seq',
      sql<number>`1`.as('present'),
      sql<string | null>`null`.as('slug'),
      contentBytes().as('bytes'),
    ])
    .where('project_id', '=', projectId)
    .where('preview_seq', '>', page.after);
  const tombstones = db
    .selectFrom('preview_tombstones')
    .select([
      'id',
      'preview_seq as seq',
      sql<number>`0`.as('present'),
      'slug',
      // Typed: PostgreSQL takes a bare null in a subquery of a UNION for text.
      sql<number | null>`cast(null as integer)`.as('bytes'),
    ])
    .where('project_id', '=', projectId)
    .where('preview_seq', '>', Math.max(page.after, page.skipDeletesUpTo));
  const rows = await firstInOrder(db, articles, tombstones, page.limit);
  return rows.map((row) => ({ ...row, seq: Number(row.seq), present: Number(row.present) }));
}

/**
 * Deletes up to `batch` tombstones of either feed older than `before`; returns how many. Small
 * batches keep each statement short, so writers that insert tombstones never wait long.
 */
export async function pruneTombstones(db: Kysely<Database>, before: number, batch: number): Promise<number> {
  let pruned = 0;
  for (const table of ['article_tombstones', 'preview_tombstones'] as const) {
    const result = await sql`
      delete from ${sql.table(table)} where (project_id, id) in (
        select project_id, id from ${sql.table(table)} where deleted_at < ${before} limit ${batch}
      )`.execute(db);
    pruned += Number(result.numAffectedRows ?? 0);
  }
  return pruned;
}

/**
 * The first `limit` rows of two feeds' sides merged in `seq` order. Each side is ordered and cut
 * on its own first: PostgreSQL then walks each index for `limit` rows, where a UNION ALL ordered
 * only as a whole read and sorted every article above the cursor, on every page of a first sync.
 */
async function firstInOrder<Row extends { seq: unknown }>(
  db: Kysely<Database>,
  articles: SelectQueryBuilder<Database, keyof Database, Row>,
  tombstones: SelectQueryBuilder<Database, keyof Database, Row>,
  limit: number,
): Promise<Row[]> {
  const side = (query: SelectQueryBuilder<Database, keyof Database, Row>) =>
    query.orderBy(sql.ref('seq')).limit(limit);
  const rows = await db
    .selectFrom(side(articles).as('a'))
    .selectAll()
    .unionAll(db.selectFrom(side(tombstones).as('t')).selectAll())
    .orderBy(sql.ref('seq'))
    .limit(limit)
    .execute();
  return rows as Row[];
}
