import type { AdminArticle, ArticleInput, Pagination, SeoInput } from '@folio/schema';
import type { Kysely, Transaction } from 'kysely';
import { isUniqueViolation } from '../db/errors.ts';
import type { ArticleRow, ArticleUpdate, Database, ProjectRow } from '../db/tables.ts';
import { AppError, notFound } from '../errors.ts';
import * as articles from '../store/articles.ts';
import { findProject, lockProject } from '../store/projects.ts';
import { type SiteSettings, servedJson, toAdminArticle } from './article-view.ts';
import { recordDeletion, stampChange, stampNewArticle } from './change-log.ts';
import { type ServiceDeps, transact } from './deps.ts';
import { recordEvent } from './events.ts';
import { type PageQuery, paginate } from './pagination.ts';
import { requireProject } from './projects.ts';
import { normalizeSlug } from './slugs.ts';
import { stableStringify } from './stable-json.ts';

/** The columns that make up what an article serves; a change to any of them is a real change. */
type ServedFields = Pick<ArticleRow, 'slug' | 'title' | 'blocks' | 'seo' | 'related'>;

export interface UpsertResult {
  article: AdminArticle;
  created: boolean;
  /** False when the replace changed nothing served and no state: a no-op. */
  changed: boolean;
}

/**
 * Creates or replaces the article `id` (chosen by the caller, so imports can be replayed). A
 * replace that changes nothing served and no state is a no-op: no new `updatedAt`, no event.
 */
export async function upsertArticle(
  deps: ServiceDeps,
  projectId: string,
  id: string,
  input: ArticleInput,
): Promise<UpsertResult> {
  return transact(deps, (trx) => upsertArticleIn(trx, deps.now(), projectId, id, input));
}

/** `upsertArticle` inside the caller's transaction, so an import can write many in one. */
export async function upsertArticleIn(
  trx: Transaction<Database>,
  now: number,
  projectId: string,
  id: string,
  input: ArticleInput,
): Promise<UpsertResult> {
  checkSeo(input.seo);
  const slug = normalizeSlug(input.slug);
  const fields: ServedFields = {
    slug,
    title: input.title,
    blocks: JSON.stringify(input.blocks),
    seo: JSON.stringify(input.seo ?? {}),
    related: JSON.stringify((input.related ?? []).map(normalizeSlug)),
  };
  return withSlugConflicts(slug, async () => {
    const site = await lockProjectIn(trx, projectId);
    const taken = await articles.findArticleBySlug(trx, projectId, slug);
    if (taken && taken.id !== id) throw slugTaken(slug, taken.id);
    const existing = await articles.findArticle(trx, projectId, id);
    if (existing) {
      const row = await applyChange(
        trx,
        site,
        existing,
        fields,
        input.published ?? existing.published === 1,
        now,
      );
      // applyChange hands back `existing` itself when there was nothing to change.
      return { article: toAdminArticle(row), created: false, changed: row !== existing };
    }
    const published = input.published === true;
    const draft: ArticleRow = {
      project_id: projectId,
      id,
      ...fields,
      published: published ? 1 : 0,
      published_at: published ? now : null,
      updated_at: now,
      created_at: now,
      served: null,
      ...(await stampNewArticle(trx, projectId, id, published, slug)),
    };
    const row = await articles.insertArticle(trx, { ...draft, served: servedJson(draft, site) });
    if (published) await recordEvent(trx, projectId, 'content.created', { id, slug: row.slug }, now);
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
    return toAdminArticle(await applyChange(trx, site, existing, undefined, published, deps.now()));
  });
}

export async function deleteArticle(deps: ServiceDeps, projectId: string, id: string): Promise<void> {
  await transact(deps, async (trx) => {
    await lockProjectIn(trx, projectId);
    const existing = await findArticleOr404(trx, projectId, id);
    await articles.deleteArticle(trx, projectId, id);
    await recordDeletion(trx, existing, deps.now());
    if (existing.published === 1) {
      await recordEvent(trx, projectId, 'content.deleted', { id, slug: existing.slug }, deps.now());
    }
  });
}

export async function getArticle(deps: ServiceDeps, projectId: string, id: string): Promise<AdminArticle> {
  return toAdminArticle(await requireArticleIn(deps.db, projectId, id));
}

/** All articles of a project, most recently updated first; `titleSearch` filters by title. */
export async function listArticles(
  deps: ServiceDeps,
  projectId: string,
  query: PageQuery & { titleSearch?: string },
): Promise<{ data: AdminArticle[]; pagination: Pagination }> {
  await requireProject(deps, projectId);
  const search = query.titleSearch?.trim() || undefined;
  const total = await articles.countAllArticles(deps.db, projectId, search);
  const { pagination, offset } = paginate(query, total);
  const rows =
    offset < total
      ? await articles.listAllArticles(deps.db, projectId, { limit: pagination.limit, offset }, search)
      : [];
  return { data: rows.map(toAdminArticle), pagination };
}

/**
 * Moves `existing` to its new fields and state and records what a receiver must hear:
 * publishing → created, unpublishing → unpublished, a served change while published → updated.
 */
async function applyChange(
  trx: Transaction<Database>,
  site: SiteSettings,
  existing: ArticleRow,
  fields: ServedFields | undefined,
  publish: boolean,
  now: number,
): Promise<ArticleRow> {
  const changed = fields !== undefined && servedContentDiffers(existing, fields);
  const wasPublished = existing.published === 1;
  if (!changed && publish === wasPublished) return existing;

  const patch: ArticleUpdate = { ...(changed ? fields : {}), published: publish ? 1 : 0 };
  if (changed || (publish && !wasPublished)) patch.updated_at = now;
  if (publish && existing.published_at === null) patch.published_at = now;
  Object.assign(patch, await stampChange(trx, existing, publish, patch.slug ?? existing.slug));
  patch.served = servedJson({ ...existing, ...patch } as ArticleRow, site);
  const row = await articles.updateArticle(trx, existing.project_id, existing.id, patch);

  const { project_id: projectId, id } = existing;
  if (publish && !wasPublished) {
    await recordEvent(trx, projectId, 'content.created', { id, slug: row.slug }, now);
  } else if (!publish && wasPublished) {
    await recordEvent(trx, projectId, 'content.unpublished', { id, slug: existing.slug }, now);
  } else if (publish && changed) {
    const previousSlug = existing.slug !== row.slug ? { previousSlug: existing.slug } : {};
    await recordEvent(trx, projectId, 'content.updated', { id, slug: row.slug, ...previousSlug }, now);
  }
  return row;
}

function servedContentDiffers(row: ArticleRow, fields: ServedFields): boolean {
  return (
    row.slug !== fields.slug ||
    row.title !== fields.title ||
    row.related !== fields.related ||
    stableStringify(JSON.parse(row.blocks)) !== stableStringify(JSON.parse(fields.blocks)) ||
    stableStringify(JSON.parse(row.seo)) !== stableStringify(JSON.parse(fields.seo))
  );
}

function checkSeo(seo: SeoInput | undefined): void {
  const image = seo?.ogImage;
  if (typeof image === 'string' && !isAbsoluteHttpUrl(image)) {
    const why = 'must be an absolute http(s) URL or null';
    throw new AppError('invalid_body', `seo.ogImage ${why}.`, [{ path: '/seo/ogImage', message: why }]);
  }
}

function isAbsoluteHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && !/\s/.test(value);
  } catch {
    return false;
  }
}

async function requireProjectIn(db: Kysely<Database>, projectId: string): Promise<void> {
  if (!(await findProject(db, projectId))) throw notFound(`Project "${projectId}"`);
}

// Writers of one project take turns. PostgreSQL runs READ COMMITTED, so without the lock two
// requests could both find an article unpublished and both record content.created, both delete
// it and both answer 204, or both insert one new id and one fail as a slug conflict.
async function lockProjectIn(trx: Transaction<Database>, projectId: string): Promise<ProjectRow> {
  const project = await lockProject(trx, projectId);
  if (!project) throw notFound(`Project "${projectId}"`);
  return project;
}

async function requireArticleIn(db: Kysely<Database>, projectId: string, id: string): Promise<ArticleRow> {
  await requireProjectIn(db, projectId);
  return findArticleOr404(db, projectId, id);
}

async function findArticleOr404(db: Kysely<Database>, projectId: string, id: string): Promise<ArticleRow> {
  const row = await articles.findArticle(db, projectId, id);
  if (!row) throw notFound(`Article "${id}"`);
  return row;
}

function slugTaken(slug: string, byId?: string): AppError {
  const by = byId ? ` by article "${byId}"` : '';
  return new AppError('conflict', `The slug "${slug}" is already used${by} in this project.`, [
    { path: '/slug', message: 'is already used by another article' },
  ]);
}

// Two writers racing for one slug both pass the lookup; the unique index decides.
async function withSlugConflicts<T>(slug: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUniqueViolation(error)) throw slugTaken(slug);
    throw error;
  }
}
