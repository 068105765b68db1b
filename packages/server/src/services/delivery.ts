import type { ProjectRow } from '../db/tables.ts';
import { AppError } from '../errors.ts';
import * as articles from '../store/articles.ts';
import { servedJsonOf, toRelatedLink, toSitemapEntry } from './article-view.ts';
import type { ServiceDeps } from './deps.ts';
import type { ListingIndex } from './listing-index.ts';
import { type PageQuery, paginate } from './pagination.ts';

// When the author names no related articles, this many of the newest are offered instead.
const DEFAULT_RELATED_COUNT = 3;

/**
 * The delivery answers as JSON text, assembled from each article's stored served JSON: a page
 * of twenty articles is joined, never parsed and serialized again.
 */
export interface DeliveryDeps extends ServiceDeps {
  listing: ListingIndex;
}

/** A page of published articles, newest first: the whole `{ success, data, pagination }` body. */
export async function listPublishedArticlesBody(
  deps: DeliveryDeps,
  project: ProjectRow,
  query: PageQuery,
): Promise<string> {
  const total = await deps.listing.total(deps.db, project);
  const { pagination, offset } = paginate(query, total);
  const rows = await deps.listing.page(deps.db, project, offset, pagination.limit);
  const data = rows.map((row) => servedJsonOf(row, project)).join(',');
  return `{"success":true,"data":[${data}],"pagination":${JSON.stringify(pagination)}}`;
}

/** One published article with its related links; 404 for unpublished, deleted or unknown slugs. */
export async function getPublishedArticleBody(
  deps: ServiceDeps,
  project: ProjectRow,
  slug: string,
): Promise<string> {
  const row = await articles.findPublishedArticleBySlug(deps.db, project.id, slug);
  if (!row) {
    const shown = slug.length > 80 ? `${slug.slice(0, 80)}…` : slug;
    throw new AppError('not_found', `No published article has the slug "${shown}".`);
  }
  const wanted = [...new Set(JSON.parse(row.related) as string[])].filter((s) => s !== row.slug);
  const related =
    wanted.length > 0
      ? orderBySlugs(await articles.listPublishedBySlugs(deps.db, project.id, wanted), wanted)
      : await articles.listLatestPublished(deps.db, project.id, row.id, DEFAULT_RELATED_COUNT);
  const links = JSON.stringify(related.map((item) => toRelatedLink(item, project)));
  // The served JSON is an object: its closing brace makes room for `related`.
  return `{"success":true,"data":${servedJsonOf(row, project).slice(0, -1)},"related":${links}}}`;
}

/** Every published article's URL on the website and its real modification time. */
export async function getSitemapBody(deps: ServiceDeps, project: ProjectRow): Promise<string> {
  const websiteUrl = project.website_url;
  if (!websiteUrl) {
    throw new AppError(
      'conflict',
      'The project has no website URL, so sitemap URLs cannot be built. Set websiteUrl on the project.',
    );
  }
  const rows = await articles.listSitemapRows(deps.db, project.id);
  const data = rows.map((row) => JSON.stringify(toSitemapEntry(row, websiteUrl, project))).join(',');
  return `{"success":true,"data":[${data}]}`;
}

function orderBySlugs<T extends { slug: string }>(rows: T[], slugs: string[]): T[] {
  const bySlug = new Map(rows.map((row) => [row.slug, row]));
  return slugs.flatMap((slug) => bySlug.get(slug) ?? []);
}
