import type { NewProject, Pagination, Project, ProjectPatch } from '@folio/schema';
import type { ProjectRow, ProjectUpdate } from '../db/tables.ts';
import { AppError, notFound } from '../errors.ts';
import * as store from '../store/projects.ts';
import { type ServiceDeps, transact } from './deps.ts';
import { isoTime } from './iso-time.ts';
import { type PageQuery, paginate } from './pagination.ts';
import { finishRewrite, rewriteNext } from './served-articles.ts';
import { generateId } from './tokens.ts';

export function toProject(row: ProjectRow): Project {
  return {
    id: row.id,
    name: row.name,
    websiteUrl: row.website_url,
    articlesPath: row.articles_path,
    previewUrl: row.preview_url,
    createdAt: isoTime(row.created_at),
  };
}

export async function createProject(deps: ServiceDeps, input: NewProject): Promise<Project> {
  const row = await store.insertProject(deps.db, {
    id: generateId('prj'),
    name: input.name.trim() || input.name,
    website_url: normalizeWebsiteUrl(input.websiteUrl ?? null),
    articles_path: normalizeArticlesPath(input.articlesPath ?? ''),
    preview_url: checkPreviewUrl(input.previewUrl ?? null),
    created_at: deps.now(),
  });
  return toProject(row);
}

export async function listProjects(deps: ServiceDeps): Promise<Project[]> {
  return (await store.listProjects(deps.db)).map(toProject);
}

/** A page of `listProjects`: reads that page's rows and a count, never the whole table. */
export async function listProjectsPage(
  deps: ServiceDeps,
  query: PageQuery,
): Promise<{ data: Project[]; pagination: Pagination }> {
  const total = await store.countProjects(deps.db);
  const { pagination, offset } = paginate(query, total);
  const page = { limit: pagination.limit, offset };
  const rows = offset < total ? await store.listProjectsPage(deps.db, page) : [];
  return { data: rows.map(toProject), pagination };
}

/** The project row, or `404 not_found`. */
export async function requireProject(deps: ServiceDeps, id: string): Promise<ProjectRow> {
  const row = await store.findProject(deps.db, id);
  if (!row) throw notFound(`Project "${id}"`);
  return row;
}

export async function getProject(deps: ServiceDeps, id: string): Promise<Project> {
  return toProject(await requireProject(deps, id));
}

export async function updateProject(deps: ServiceDeps, id: string, patch: ProjectPatch): Promise<Project> {
  const update: ProjectUpdate = {};
  if (patch.name !== undefined) update.name = patch.name;
  if (patch.websiteUrl !== undefined) update.website_url = normalizeWebsiteUrl(patch.websiteUrl);
  if (patch.articlesPath !== undefined) update.articles_path = normalizeArticlesPath(patch.articlesPath);
  if (patch.previewUrl !== undefined) update.preview_url = checkPreviewUrl(patch.previewUrl);
  const { row, rewrite } = await transact(deps, async (trx) => {
    const current = await store.findProject(trx, id);
    if (!current) throw notFound(`Project "${id}"`);
    if (Object.keys(update).length === 0) return { row: current, rewrite: false };
    const servedChange =
      (update.website_url !== undefined && update.website_url !== current.website_url) ||
      (update.articles_path !== undefined && update.articles_path !== current.articles_path);
    const row = (await store.updateProject(trx, id, update))!;
    // Canonical paths, jsonLd URLs and the sitemap are built on these settings. A project of
    // one batch is rewritten in this transaction; a larger one in the transactions that follow,
    // before the answer.
    if (!servedChange) return { row, rewrite: false };
    await store.markForRewrite(trx, id);
    return { row, rewrite: !(await rewriteNext(trx, id, deps.now)).done };
  });
  if (rewrite) await finishRewrite(deps, id);
  return toProject(row);
}

/**
 * An absolute http(s) origin. A trailing slash is dropped; a path, query, fragment or
 * credentials are refused because every sitemap URL is built on this origin.
 */
export function normalizeWebsiteUrl(value: string | null): string | null {
  if (value === null || value.trim() === '') return null;
  const refuse = (why: string) =>
    new AppError('invalid_body', `websiteUrl ${why}.`, [{ path: '/websiteUrl', message: why }]);
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw refuse('must be an absolute URL such as https://www.example.com');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse('must use http or https');
  if (url.username || url.password) throw refuse('must not contain credentials');
  if (url.pathname !== '/' || url.search || url.hash) {
    throw refuse('must be an origin without a path, query or fragment, such as https://www.example.com');
  }
  return url.origin;
}

/**
 * `null`, or an absolute http(s) URL holding `{token}` and at most `{slug}` besides: where the
 * site previews an article (contract, Part 2: preview links).
 */
export function checkPreviewUrl(value: string | null): string | null {
  if (value === null) return null;
  const refuse = (why: string) =>
    new AppError('invalid_body', `previewUrl ${why}.`, [{ path: '/previewUrl', message: why }]);
  // Kept exactly as set (the contract shows it so), so nothing is trimmed or taken for null.
  if (value.trim() === '') throw refuse('is empty: send null to remove it');
  if (value.trim() !== value) throw refuse('has spaces around it');
  const template = value;
  if (!template.includes('{token}')) throw refuse('must contain {token}, where the preview token goes');
  const other = template.replace(/\{(token|slug)\}/g, '').match(/\{[^}]*\}/);
  if (other) throw refuse(`has the placeholder ${other[0]}; only {token} and {slug} are filled in`);
  let url: URL;
  try {
    url = new URL(template.replace(/\{(token|slug)\}/g, 'x'));
  } catch {
    throw refuse('must be an absolute URL such as https://www.example.com/api/preview?token={token}');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse('must use http or https');
  if (url.username || url.password) throw refuse('must not contain credentials');
  return template;
}

const PATH_SEGMENT = /^[A-Za-z0-9._~!$&'()*+,;=:@-]+$/;
// A scheme and an authority (RFC 3986 3): what a path never starts with.
const URL_SHAPED = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

/** `""` or `/segment[/segment…]`: a leading slash, no trailing slash, no empty segments. */
export function normalizeArticlesPath(value: string): string {
  // Each part of `https://host/blog` is a legal segment: collapsed, it became `/https:/host/blog`.
  if (URL_SHAPED.test(value.trim())) {
    const why = 'is a whole URL: give the path on the site (such as /blog) and set the origin as websiteUrl';
    throw new AppError('invalid_body', `articlesPath ${why}.`, [{ path: '/articlesPath', message: why }]);
  }
  const segments = value.trim().split('/').filter(Boolean);
  for (const segment of segments) {
    if (!PATH_SEGMENT.test(segment) || segment === '.' || segment === '..') {
      const why = `has a segment "${segment}" that is not allowed in a URL path (use letters, digits and - . _ ~)`;
      throw new AppError('invalid_body', `articlesPath ${why}.`, [{ path: '/articlesPath', message: why }]);
    }
  }
  return segments.length === 0 ? '' : `/${segments.join('/')}`;
}
