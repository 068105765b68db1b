import { type ExpressionBuilder, type Kysely, type SelectQueryBuilder, sql, type Transaction } from 'kysely';
import type { ArticleRow, ArticleUpdate, Database, NewArticleRow, UnservedArticleRow } from '../db/tables.ts';
import { chunks } from './chunks.ts';

/** A project's articles: every lookup below starts here. */
function ofProject(db: Kysely<Database>, projectId: string) {
  return db.selectFrom('articles').selectAll().where('project_id', '=', projectId);
}

export async function findArticle(
  db: Kysely<Database>,
  projectId: string,
  id: string,
): Promise<ArticleRow | undefined> {
  return ofProject(db, projectId).where('id', '=', id).executeTakeFirst();
}

/** The article holding `slug` in the project, in any state. */
export async function findArticleBySlug(
  db: Kysely<Database>,
  projectId: string,
  slug: string,
): Promise<ArticleRow | undefined> {
  return ofProject(db, projectId).where('slug', '=', slug).executeTakeFirst();
}

export async function findPublishedArticleBySlug(
  db: Kysely<Database>,
  projectId: string,
  slug: string,
): Promise<ArticleRow | undefined> {
  return ofProject(db, projectId).where('slug', '=', slug).where('published', '=', 1).executeTakeFirst();
}

export async function insertArticle(db: Kysely<Database>, row: NewArticleRow): Promise<ArticleRow> {
  return db.insertInto('articles').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateArticle(
  db: Kysely<Database>,
  projectId: string,
  id: string,
  patch: ArticleUpdate,
): Promise<ArticleRow> {
  return db
    .updateTable('articles')
    .set(patch)
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteArticle(db: Kysely<Database>, projectId: string, id: string): Promise<void> {
  await db.deleteFrom('articles').where('project_id', '=', projectId).where('id', '=', id).execute();
}

export async function countPublishedArticles(db: Kysely<Database>, projectId: string): Promise<number> {
  const row = await db
    .selectFrom('articles')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('project_id', '=', projectId)
    .where('published', '=', 1)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** One page of published articles in delivery order: newest first, then id descending. */
export async function listPublishedArticles(
  db: Kysely<Database>,
  projectId: string,
  page: { limit: number; offset: number },
): Promise<ArticleRow[]> {
  return db
    .selectFrom('articles')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('published', '=', 1)
    .orderBy('published_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export type RelatedRow = Pick<ArticleRow, 'id' | 'slug' | 'title'>;

export async function listPublishedBySlugs(
  db: Kysely<Database>,
  projectId: string,
  slugs: string[],
): Promise<RelatedRow[]> {
  if (slugs.length === 0) return [];
  return db
    .selectFrom('articles')
    .select(['id', 'slug', 'title'])
    .where('project_id', '=', projectId)
    .where('published', '=', 1)
    .where('slug', 'in', slugs)
    .execute();
}

/** The newest published articles other than `excludeId`. */
export async function listLatestPublished(
  db: Kysely<Database>,
  projectId: string,
  excludeId: string,
  limit: number,
): Promise<RelatedRow[]> {
  return db
    .selectFrom('articles')
    .select(['id', 'slug', 'title'])
    .where('project_id', '=', projectId)
    .where('published', '=', 1)
    .where('id', '!=', excludeId)
    .orderBy('published_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export type SitemapRow = Pick<ArticleRow, 'slug' | 'updated_at'>;

/**
 * A batch of the sitemap in delivery order, as the database aggregated it: one row of long
 * strings instead of a row per article. Building a row and decoding its strings in the driver
 * was most of what a large sitemap cost on PostgreSQL; on SQLite the two read alike (BENCHMARKS.md,
 * How the delivery path works, "Cheap cold path").
 */
export interface SitemapBatch {
  /** The slugs, joined by newlines (a slug holds no whitespace). */
  slugs: string;
  /** Each article's updated_at in epoch milliseconds, as decimal text, joined by commas. */
  updatedAt: string;
  count: number;
  /** The sort key of the batch's last article: the next batch starts after it. */
  last: ListCursor;
}

/**
 * The sitemap batch of at most `limit` articles after the sort key `after` (exclusive).
 * The aggregates take the rows in the order the subquery gives them, which both databases keep
 * for a plain aggregate over one ordered subquery (PostgreSQL's manual gives this form for
 * ordered input). Ordering inside each aggregate instead sorts the batch once per aggregate,
 * which made the queries of a large sitemap markedly slower on PostgreSQL 15. The sitemap test
 * holds the order to the delivery list's on both databases. The ids are
 * joined only for the last one, the next batch's cursor: SQLite has no arrays to pick it from.
 */
export async function listSitemapBatch(
  db: Kysely<Database>,
  projectId: string,
  after: ListCursor | undefined,
  limit: number,
): Promise<SitemapBatch | undefined> {
  let batch = db
    .selectFrom('articles')
    .select(['slug', 'updated_at', 'published_at', 'id'])
    .where('project_id', '=', projectId)
    .where('published', '=', 1);
  if (after) {
    batch = batch.where((eb) =>
      eb(eb.refTuple('published_at', 'id'), '<', eb.tuple(after.published_at, after.id)),
    );
  }
  const row = await db
    .selectFrom(batch.orderBy('published_at', 'desc').orderBy('id', 'desc').limit(limit).as('batch'))
    .select([
      sql<string | null>`string_agg(slug, ${'\n'})`.as('slugs'),
      sql<string | null>`string_agg(cast(updated_at as text), ',')`.as('updated_at'),
      sql<string | null>`string_agg(id, ',')`.as('ids'),
      (eb) => eb.fn.min('published_at').as('published_at'),
      (eb) => eb.fn.countAll<number | string>().as('count'),
    ])
    .executeTakeFirstOrThrow();
  if (row.slugs === null || row.updated_at === null || row.ids === null) return undefined;
  return {
    slugs: row.slugs,
    updatedAt: row.updated_at,
    count: Number(row.count),
    last: { published_at: row.published_at!, id: row.ids.slice(row.ids.lastIndexOf(',') + 1) },
  };
}

/**
 * "Title contains `text`", case-insensitively; `%`, `_` and `\\` in the text match themselves.
 * Both sides go through the database's own lower(); PostgreSQL's LIKE alone is case-sensitive.
 */
function titleContains(eb: ExpressionBuilder<Database, 'articles'>, text: string) {
  const pattern = `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
  return eb(sql`lower(${eb.ref('title')})`, 'like', sql<string>`lower(${pattern}) escape '\\'`);
}

/**
 * A page of all articles of a project, most recently updated first, for the management API and
 * the dashboard; `titleSearch` keeps those whose title contains it. Ids and sizes only: the
 * articles themselves are read a few at a time (`rowsOfIds`), since a page of large ones does
 * not fit in a server's memory at once.
 */
export async function listAllArticleIds(
  db: Kysely<Database>,
  projectId: string,
  page: { limit: number; offset: number },
  titleSearch?: string,
): Promise<SizedId[]> {
  // On the `articles_admin_order` index: an OFFSET over whole rows read every skipped article.
  return db
    .selectFrom('articles')
    .select(['id', contentBytes().as('bytes')])
    .where('project_id', '=', projectId)
    .$if(titleSearch !== undefined, (qb) => qb.where((eb) => titleContains(eb, titleSearch!)))
    .orderBy('updated_at', 'desc')
    .orderBy('id', 'asc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

/** An article's id, and how many bytes its stored content takes: what reading it will cost. */
export interface SizedId {
  id: string;
  bytes: number | null;
}

/**
 * The stored bytes an article's management and preview answers are made from. `octet_length`
 * reads a value's stored length, not the value: SQLite's record header, PostgreSQL's TOAST
 * header.
 */
export function contentBytes() {
  return sql<number | null>`octet_length(blocks) + octet_length(seo) + coalesce(octet_length(draft), 0)`;
}

/** What the dashboard's list shows of an article: no content, so a page of large ones stays small. */
export type ArticleSummaryRow = Pick<
  ArticleRow,
  'id' | 'slug' | 'title' | 'published' | 'published_at' | 'updated_at' | 'publish_at' | 'unpublish_at'
> & { has_draft: number };

/** The summaries of the articles `ids`, in that order; an article deleted in between is left out. */
export async function summariesOfIds(
  db: Kysely<Database>,
  projectId: string,
  ids: ReadonlyArray<{ id: string }>,
): Promise<ArticleSummaryRow[]> {
  if (ids.length === 0) return [];
  const found = await ofIds(db, projectId, ids)
    .select(['id', 'slug', 'title', 'published', 'published_at', 'updated_at', 'publish_at', 'unpublish_at'])
    .select(sql<number>`case when draft is null then 0 else 1 end`.as('has_draft'))
    .execute();
  return inOrderOf(ids, found);
}

/**
 * The articles of a page whose ids were read in order, in that order. A second statement, by
 * primary key: the same ORDER BY around `id in (…)` had SQLite walk the whole project's index
 * to spare itself sorting 20 rows. An article deleted in between is left out.
 */
export async function rowsOfIds(
  db: Kysely<Database>,
  projectId: string,
  ids: ReadonlyArray<{ id: string }>,
): Promise<UnservedArticleRow[]> {
  if (ids.length === 0) return [];
  const found = await ofIds(db, projectId, ids).select(UNSERVED_COLUMNS).execute();
  return inOrderOf(ids, found);
}

/** The project's articles `ids`, by primary key, in no order (`inOrderOf` puts them back). */
function ofIds(db: Kysely<Database>, projectId: string, ids: ReadonlyArray<{ id: string }>) {
  return db
    .selectFrom('articles')
    .where('project_id', '=', projectId)
    .where(
      'id',
      'in',
      ids.map((row) => row.id),
    );
}

// Every column but `served`, about as large as the blocks and unread where an article is made
// into something else (the management list, the preview, the rewrite of served JSON, an export):
// a run of large articles then holds half as much.
const UNSERVED_COLUMNS = [
  'project_id',
  'id',
  'slug',
  'title',
  'blocks',
  'seo',
  'related',
  'published',
  'published_at',
  'updated_at',
  'created_at',
  'change_seq',
  'served_slug',
  'draft',
  'draft_slug',
  'draft_updated_at',
  'publish_at',
  'unpublish_at',
  'preview_seq',
] as const satisfies ReadonlyArray<keyof UnservedArticleRow>;

function inOrderOf<R extends { id: string }>(ids: ReadonlyArray<{ id: string }>, found: R[]): R[] {
  const rows = new Map(found.map((row) => [row.id, row]));
  return ids.flatMap(({ id }) => rows.get(id) ?? []);
}

export async function countAllArticles(
  db: Kysely<Database>,
  projectId: string,
  titleSearch?: string,
): Promise<number> {
  const row = await db
    .selectFrom('articles')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('project_id', '=', projectId)
    .$if(titleSearch !== undefined, (qb) => qb.where((eb) => titleContains(eb, titleSearch!)))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * Sets the served JSON of many articles of a project and their change numbers, a statement per
 * few hundred: `seq` becomes each one's preview number, and a published one's change number.
 */
export async function restampServed(
  trx: Transaction<Database>,
  projectId: string,
  rows: ReadonlyArray<{ id: string; served: string; seq: number }>,
): Promise<void> {
  for (const chunk of chunks(rows)) {
    // Parameters in VALUES are text to PostgreSQL until cast.
    const values = sql.join(chunk.map((row) => sql`(${row.id}, ${row.served}, cast(${row.seq} as bigint))`));
    await sql`
      with given (id, served, seq) as (values ${values})
      update articles set
        served = given.served,
        preview_seq = given.seq,
        change_seq = case when articles.published = 1 then given.seq else articles.change_seq end
      from given
      where articles.project_id = ${projectId} and articles.id = given.id
    `.execute(trx);
  }
}

/** The sort key of the delivery order: publishedAt descending, then id descending. */
export interface ListCursor {
  published_at: number;
  id: string;
}

/**
 * What a list page needs of an article: its served JSON, read with the row when it is at most
 * `INLINE_SERVED_BYTES` long; `bytes` is its length. A longer one (`served` null, `bytes` set)
 * is read on its own (`servedOfIds`), a few at a time: a page of a hundred articles near the
 * body limit is a hundred megabytes. Both are null for a row older than the column, until its
 * next write.
 */
export interface ServedRow {
  id: string;
  served: string | null;
  bytes: number | null;
}

/** Served JSON up to this length is read with its row. */
export const INLINE_SERVED_BYTES = 32 * 1024;

/** The served JSON when it is short enough to read with its row, and its length. */
export function servedIfShort() {
  const limit = sql.lit(INLINE_SERVED_BYTES);
  return [
    sql<string | null>`case when octet_length(served) <= ${limit} then served end`.as('served'),
    sql<number | null>`octet_length(served)`.as('bytes'),
  ] as const;
}

/** The served JSON of the articles `ids`, by id; a deleted article is missing, a row older than the column null. */
export async function servedOfIds(
  db: Kysely<Database>,
  projectId: string,
  ids: string[],
): Promise<Map<string, string | null>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('articles')
    .select(['id', 'served'])
    .where('project_id', '=', projectId)
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((row) => [row.id, row.served]));
}

/**
 * Published articles from `from` (inclusive) on in delivery order, skipping `offset`. A seek
 * to a known cursor keeps deep pages as cheap as the first one. Only the served JSON is read,
 * when short: the other columns, blocks above all, would double what a cold list page costs.
 */
export async function listPublishedFrom(
  db: Kysely<Database>,
  projectId: string,
  page: { from: ListCursor | undefined; offset: number; limit: number },
): Promise<ServedRow[]> {
  let query = db
    .selectFrom('articles')
    .select(['id', ...servedIfShort()])
    .where('project_id', '=', projectId)
    .where('published', '=', 1);
  const from = page.from;
  if (from) {
    query = query.where((eb) =>
      eb(eb.refTuple('published_at', 'id'), '<=', eb.tuple(from.published_at, from.id)),
    );
  }
  return query
    .orderBy('published_at', 'desc')
    .orderBy('id', 'desc')
    .offset(page.offset)
    .limit(page.limit)
    .execute();
}

/** Sort keys only, from `from` (inclusive) on: walks the index without reading articles. */
export async function listPublishedKeysFrom(
  db: Kysely<Database>,
  projectId: string,
  from: ListCursor | undefined,
  limit: number,
): Promise<ListCursor[]> {
  let query = db
    .selectFrom('articles')
    .select(['published_at', 'id'])
    .where('project_id', '=', projectId)
    .where('published', '=', 1);
  if (from) {
    query = query.where((eb) =>
      eb(eb.refTuple('published_at', 'id'), '<=', eb.tuple(from.published_at, from.id)),
    );
  }
  const rows = await query.orderBy('published_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  return rows as ListCursor[];
}

/**
 * The ids and sizes of up to `limit` articles of a project after `afterId`, by id: keyset pages
 * for export and for the rewrite after a settings change, whose articles are read a run at a time.
 */
export async function listSizedIdsAfterId(
  db: Kysely<Database>,
  projectId: string,
  afterId: string | undefined,
  limit: number,
): Promise<SizedId[]> {
  let query = db
    .selectFrom('articles')
    .select(['id', contentBytes().as('bytes')])
    .where('project_id', '=', projectId);
  if (afterId !== undefined) query = query.where('id', '>', afterId);
  return query.orderBy('id', 'asc').limit(limit).execute();
}

/**
 * The id of an article other than `exceptId` that holds `slug`, as its stored slug or its
 * draft's; undefined when none does. Two index probes: an OR of the two columns reads every
 * article of the project on both databases.
 */
export async function findSlugHolder(
  db: Kysely<Database>,
  projectId: string,
  slug: string,
  exceptId: string,
): Promise<string | undefined> {
  return (await slugHolderQuery(db, projectId, slug, exceptId).executeTakeFirst())?.id;
}

/** The query of `findSlugHolder`, for the test that holds it to its indexes. */
export function slugHolderQuery(db: Kysely<Database>, projectId: string, slug: string, exceptId: string) {
  const holders = (column: 'slug' | 'draft_slug') =>
    db
      .selectFrom('articles')
      .select('id')
      .where('project_id', '=', projectId)
      .where(column, '=', slug)
      .where('id', '!=', exceptId);
  return holders('slug').unionAll(holders('draft_slug')).limit(1);
}

/** An article with a schedule time at or before some moment: `due` is the earlier of its times. */
export interface DueSchedule {
  project_id: string;
  id: string;
  due: number;
  /** The article's stored bytes (`contentBytes`): what applying its schedule reads. */
  bytes: number | null;
}

/**
 * Up to `limit` articles with a publish or unpublish time at or before `by`, earliest first,
 * after `after` (one read before) in that order. Two probes of partial indexes that hold only
 * scheduled articles: when nothing is due, the query reads nothing.
 */
export async function listSchedulesDueBy(
  db: Kysely<Database>,
  by: number,
  limit: number,
  after?: Pick<DueSchedule, 'due' | 'project_id' | 'id'>,
): Promise<DueSchedule[]> {
  const dueBy = (column: 'publish_at' | 'unpublish_at') =>
    db
      .selectFrom('articles')
      .select(['project_id', 'id', `${column} as due`, contentBytes().as('bytes')])
      .where(column, 'is not', null)
      .where(column, '<=', by)
      .$if(after !== undefined, (query) =>
        query.where((eb) =>
          eb.or([
            eb(column, '>', after!.due),
            eb.and([
              eb(column, '=', after!.due),
              eb(eb.refTuple('project_id', 'id'), '>', eb.tuple(after!.project_id, after!.id)),
            ]),
          ]),
        ),
      );
  const rows = await dueBy('publish_at')
    .unionAll(dueBy('unpublish_at'))
    .orderBy('due')
    .orderBy('project_id')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows as DueSchedule[];
}

/**
 * The preview perspective's order: publishedAt descending with never-published articles first,
 * those by the updatedAt they show (their draft's when they have one) descending; then id
 * descending (contract, Part 2). Index `articles_preview_order` (migration 0013) holds these
 * very expressions: a planner matches an ORDER BY to an index by its text, so a change here
 * needs a new index.
 */
function inPreviewOrder<O>(query: SelectQueryBuilder<Database, 'articles', O>) {
  return query
    .orderBy(sql`published_at is null`, 'desc')
    .orderBy('published_at', 'desc')
    .orderBy(sql`case when published_at is null then coalesce(draft_updated_at, updated_at) end`, 'desc')
    .orderBy('id', 'desc');
}

/**
 * A page of all articles of a project in the preview perspective's order: ids and sizes, the
 * articles to be read a few at a time (`rowsOfIds`).
 */
export async function listPreviewPage(
  db: Kysely<Database>,
  projectId: string,
  page: { limit: number; offset: number },
): Promise<SizedId[]> {
  return previewPageQuery(db, projectId, page).execute();
}

/** The query of `listPreviewPage`, for the test that holds it to its index. */
export function previewPageQuery(
  db: Kysely<Database>,
  projectId: string,
  page: { limit: number; offset: number },
) {
  const ids = db
    .selectFrom('articles')
    .select(['id', contentBytes().as('bytes')])
    .where('project_id', '=', projectId);
  return inPreviewOrder(ids).limit(page.limit).offset(page.offset);
}

/** The article whose slug in the preview perspective is `slug`: its draft's, else its stored one. */
export async function findPreviewArticleBySlug(
  db: Kysely<Database>,
  projectId: string,
  slug: string,
): Promise<ArticleRow | undefined> {
  return previewBySlugQuery(db, projectId, slug).executeTakeFirst();
}

/**
 * The query of `findPreviewArticleBySlug`, for the test that holds it to its indexes. Two
 * probes, one per slug column: SQLite planned the two columns joined by OR as a walk through
 * the whole project, so a preview miss read every row.
 */
export function previewBySlugQuery(db: Kysely<Database>, projectId: string, slug: string) {
  return ofProject(db, projectId)
    .where('draft_slug', '=', slug)
    .unionAll(ofProject(db, projectId).where('draft_slug', 'is', null).where('slug', '=', slug));
}

/** What a related link in the preview perspective is made of. */
export type PreviewRelatedRow = Pick<ArticleRow, 'id' | 'slug' | 'title' | 'draft' | 'draft_slug'>;

/** The articles whose slug in the preview perspective is one of `slugs`. */
export async function listPreviewBySlugs(
  db: Kysely<Database>,
  projectId: string,
  slugs: string[],
): Promise<PreviewRelatedRow[]> {
  if (slugs.length === 0) return [];
  // One probe per slug column, as `previewBySlugQuery`.
  const links = () =>
    db
      .selectFrom('articles')
      .select(['id', 'slug', 'title', 'draft', 'draft_slug'])
      .where('project_id', '=', projectId);
  return links()
    .where('draft_slug', 'in', slugs)
    .unionAll(links().where('draft_slug', 'is', null).where('slug', 'in', slugs))
    .execute();
}

/** The first articles other than `excludeId` in the preview perspective's order. */
export async function listLatestPreview(
  db: Kysely<Database>,
  projectId: string,
  excludeId: string,
  limit: number,
): Promise<PreviewRelatedRow[]> {
  return latestPreviewQuery(db, projectId, excludeId, limit).execute();
}

/** The query of `listLatestPreview`, for the test that holds it to its index. */
export function latestPreviewQuery(
  db: Kysely<Database>,
  projectId: string,
  excludeId: string,
  limit: number,
) {
  const query = db
    .selectFrom('articles')
    .select(['id', 'slug', 'title', 'draft', 'draft_slug'])
    .where('project_id', '=', projectId)
    .where('id', '!=', excludeId);
  return inPreviewOrder(query).limit(limit);
}

/** The articles of a project with these ids, in any order. */
export async function findArticlesByIds(
  db: Kysely<Database>,
  projectId: string,
  ids: string[],
): Promise<ArticleRow[]> {
  if (ids.length === 0) return [];
  return ofProject(db, projectId).where('id', 'in', ids).execute();
}
