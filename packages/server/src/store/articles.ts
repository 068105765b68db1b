import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import type { ArticleRow, ArticleUpdate, Database, NewArticleRow } from '../db/tables.ts';

export async function findArticle(
  db: Kysely<Database>,
  projectId: string,
  id: string,
): Promise<ArticleRow | undefined> {
  return db
    .selectFrom('articles')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The article holding `slug` in the project, in any state. */
export async function findArticleBySlug(
  db: Kysely<Database>,
  projectId: string,
  slug: string,
): Promise<ArticleRow | undefined> {
  return db
    .selectFrom('articles')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('slug', '=', slug)
    .executeTakeFirst();
}

export async function findPublishedArticleBySlug(
  db: Kysely<Database>,
  projectId: string,
  slug: string,
): Promise<ArticleRow | undefined> {
  return db
    .selectFrom('articles')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('slug', '=', slug)
    .where('published', '=', 1)
    .executeTakeFirst();
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

export async function listSitemapRows(db: Kysely<Database>, projectId: string): Promise<SitemapRow[]> {
  return db
    .selectFrom('articles')
    .select(['slug', 'updated_at'])
    .where('project_id', '=', projectId)
    .where('published', '=', 1)
    .orderBy('published_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
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
 * the dashboard; `titleSearch` keeps those whose title contains it.
 */
export async function listAllArticles(
  db: Kysely<Database>,
  projectId: string,
  page: { limit: number; offset: number },
  titleSearch?: string,
): Promise<ArticleRow[]> {
  return db
    .selectFrom('articles')
    .selectAll()
    .where('project_id', '=', projectId)
    .$if(titleSearch !== undefined, (qb) => qb.where((eb) => titleContains(eb, titleSearch!)))
    .orderBy('updated_at', 'desc')
    .orderBy('id', 'asc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
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
