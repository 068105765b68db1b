import type { AdminArticle, ArticleInput, Pagination } from '@folio/schema';
import type { Kysely, Transaction } from 'kysely';
import type { ArticleRow, Database } from '../db/tables.ts';
import { notFound } from '../errors.ts';
import * as articles from '../store/articles.ts';
import { deletePreviewTokens } from '../store/preview-tokens.ts';
import { findProject } from '../store/projects.ts';
import { adminArticleJson, toAdminArticle } from './article-view.ts';
import {
  applyChange,
  applyDue,
  contentColumns,
  findArticleOr404,
  insertNewArticle,
  lockProjectIn,
  publishIn,
  scheduleColumns,
  unpublishIn,
  writeContent,
} from './article-writes.ts';
import { recordDeletion } from './change-log.ts';
import { type ServiceDeps, transact } from './deps.ts';
import { recordEvent } from './events.ts';
import { isoTime } from './iso-time.ts';
import { inRuns, type JsonText, jsonArray } from './json-runs.ts';
import { type PageQuery, paginate } from './pagination.ts';
import { requireProject } from './projects.ts';

export interface UpsertResult {
  article: AdminArticle;
  created: boolean;
  /** False when the replace changed nothing served and no state: a no-op. */
  changed: boolean;
}

/**
 * Creates or replaces the article `id` (chosen by the caller, so imports can be replayed). A
 * replace that changes nothing served and no state is a no-op: no new `updatedAt`, no event.
 * The article's draft is kept as it is.
 */
export async function upsertArticle(
  deps: ServiceDeps,
  projectId: string,
  id: string,
  input: ArticleInput,
): Promise<UpsertResult> {
  return transact(deps, (trx) => upsertArticleIn(trx, deps.now, projectId, id, input));
}

/**
 * `upsertArticle` inside the caller's transaction, so an import can write many in one. `clock`
 * is read once the project's write turn is taken: a write that waited behind another (an
 * import, a site settings change) is stamped when it is made, not when it asked.
 */
export async function upsertArticleIn(
  trx: Transaction<Database>,
  clock: () => number,
  projectId: string,
  id: string,
  input: ArticleInput,
): Promise<UpsertResult> {
  const content = contentColumns(input);
  return writeContent(trx, projectId, id, content, async (site, existing) => {
    const now = clock();
    if (existing) {
      const publish = input.published ?? existing.published === 1;
      // Publishing or unpublishing here is a manual publish or unpublish: it clears the
      // schedule as `POST …/publish` and `…/unpublish` do, unless the body sets one.
      const base =
        publish === (existing.published === 1)
          ? existing
          : { publish_at: null, unpublish_at: publish ? existing.unpublish_at : null };
      const side = scheduleColumns(base, input);
      const changed = await applyChange(trx, site, existing, { content, publish, side }, now);
      const row = await applyDue(trx, site, changed, now, existing);
      // applyChange hands back `existing` itself when there was nothing to change.
      return { article: toAdminArticle(row), created: false, changed: row !== existing };
    }
    const schedule = scheduleColumns({ publish_at: null, unpublish_at: null }, input);
    const published = input.published === true;
    const inserted = await insertNewArticle(trx, site, id, { content, published, schedule }, now);
    const row = await applyDue(trx, site, inserted, now);
    return { article: toAdminArticle(row), created: true, changed: true };
  });
}

/** Publishes an article; publishing a published article is a no-op. */
export async function publishArticle(
  deps: ServiceDeps,
  projectId: string,
  id: string,
): Promise<AdminArticle> {
  return setPublished(deps, projectId, id, true);
}

/** Unpublishes an article; it stops being served at once. */
export async function unpublishArticle(
  deps: ServiceDeps,
  projectId: string,
  id: string,
): Promise<AdminArticle> {
  return setPublished(deps, projectId, id, false);
}

async function setPublished(
  deps: ServiceDeps,
  projectId: string,
  id: string,
  published: boolean,
): Promise<AdminArticle> {
  return transact(deps, async (trx) => {
    const site = await lockProjectIn(trx, projectId);
    const existing = await findArticleOr404(trx, projectId, id);
    const apply = published ? publishIn : unpublishIn;
    return toAdminArticle(await apply(trx, site, existing, deps.now()));
  });
}

export async function deleteArticle(deps: ServiceDeps, projectId: string, id: string): Promise<void> {
  await transact(deps, async (trx) => {
    await lockProjectIn(trx, projectId);
    const existing = await findArticleOr404(trx, projectId, id);
    await articles.deleteArticle(trx, projectId, id);
    await deletePreviewTokens(trx, projectId, id);
    await recordDeletion(trx, existing, deps.now());
    if (existing.published === 1) {
      await recordEvent(trx, projectId, 'content.deleted', { id, slug: existing.slug }, deps.now());
    }
  });
}

/** The id of the article holding `slug` in the project, if one does. */
export async function findArticleIdBySlug(
  deps: ServiceDeps,
  projectId: string,
  slug: string,
): Promise<string | undefined> {
  return (await articles.findArticleBySlug(deps.db, projectId, slug))?.id;
}

export async function getArticle(deps: ServiceDeps, projectId: string, id: string): Promise<AdminArticle> {
  return toAdminArticle(await requireArticleIn(deps.db, projectId, id));
}

/** What a page of articles is asked for with: its place, and a title to search for. */
export type ArticlesQuery = PageQuery & { titleSearch?: string };

/**
 * All articles of a project, most recently updated first; `titleSearch` filters by title. The
 * page's articles are read and written a run at a time (`json-runs.ts`).
 */
export async function listArticles(
  deps: ServiceDeps,
  projectId: string,
  query: ArticlesQuery,
): Promise<{ data: JsonText; pagination: Pagination }> {
  const { ids, pagination } = await pageOfIds(deps, projectId, query);
  return { data: jsonArray(adminInRuns(deps, projectId, ids)), pagination };
}

async function* adminInRuns(deps: ServiceDeps, projectId: string, ids: articles.SizedId[]) {
  for (const run of inRuns(ids)) {
    yield (await articles.rowsOfIds(deps.db, projectId, run)).map(adminArticleJson);
  }
}

/** What a list of articles shows of each: where it stands, without its content. */
export type ArticleSummary = Pick<
  AdminArticle,
  'id' | 'slug' | 'title' | 'published' | 'publishedAt' | 'updatedAt' | 'publishAt' | 'unpublishAt'
> & { hasDraft: boolean };

/** `listArticles` for the dashboard's list: summaries, so a page of large articles stays small. */
export async function listArticleSummaries(
  deps: ServiceDeps,
  projectId: string,
  query: ArticlesQuery,
): Promise<{ data: ArticleSummary[]; pagination: Pagination }> {
  const { ids, pagination } = await pageOfIds(deps, projectId, query);
  const rows = await articles.summariesOfIds(deps.db, projectId, ids);
  const time = (at: number | null) => (at === null ? null : isoTime(at));
  const data = rows.map((row) => ({
    id: row.id,
    slug: row.slug,
    title: row.title,
    published: Number(row.published) === 1,
    publishedAt: time(row.published_at),
    updatedAt: isoTime(row.updated_at),
    publishAt: time(row.publish_at),
    unpublishAt: time(row.unpublish_at),
    hasDraft: Number(row.has_draft) === 1,
  }));
  return { data, pagination };
}

async function pageOfIds(
  deps: ServiceDeps,
  projectId: string,
  query: ArticlesQuery,
): Promise<{ ids: articles.SizedId[]; pagination: Pagination }> {
  await requireProject(deps, projectId);
  const search = query.titleSearch?.trim() || undefined;
  // No title holds U+0000 (bodies holding it are refused), and neither database can search for
  // it: PostgreSQL refuses it in a parameter, SQLite's LIKE ends the pattern there.
  const total = search?.includes('\u0000') ? 0 : await articles.countAllArticles(deps.db, projectId, search);
  const { pagination, offset } = paginate(query, total);
  const page = { limit: pagination.limit, offset };
  const ids = offset < total ? await articles.listAllArticleIds(deps.db, projectId, page, search) : [];
  return { ids, pagination };
}

async function requireProjectIn(db: Kysely<Database>, projectId: string): Promise<void> {
  if (!(await findProject(db, projectId))) throw notFound(`Project "${projectId}"`);
}

async function requireArticleIn(db: Kysely<Database>, projectId: string, id: string): Promise<ArticleRow> {
  await requireProjectIn(db, projectId);
  return findArticleOr404(db, projectId, id);
}
