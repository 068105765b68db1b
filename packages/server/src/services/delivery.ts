import type { Article, ArticleListItem, Pagination, SitemapEntry } from '@folio/schema';
import type { ProjectRow } from '../db/tables.ts';
import { AppError } from '../errors.ts';
import * as articles from '../store/articles.ts';
import { toRelatedLink, toServedArticle, toSitemapEntry } from './article-view.ts';
import type { ServiceDeps } from './deps.ts';
import { type PageQuery, paginate } from './pagination.ts';

// When the author names no related articles, this many of the newest are offered instead.
const DEFAULT_RELATED_COUNT = 3;

/** A page of published articles, newest first. */
export async function listPublishedArticles(
  deps: ServiceDeps,
  project: ProjectRow,
  query: PageQuery,
): Promise<{ data: ArticleListItem[]; pagination: Pagination }> {
  const total = await articles.countPublishedArticles(deps.db, project.id);
  const { pagination, offset } = paginate(query, total);
  if (offset >= total) return { data: [], pagination };
  const rows = await articles.listPublishedArticles(deps.db, project.id, { limit: pagination.limit, offset });
  return { data: rows.map((row) => toServedArticle(row, project)), pagination };
}

/** One published article with its related links; 404 for unpublished, deleted or unknown slugs. */
export async function getPublishedArticle(
  deps: ServiceDeps,
  project: ProjectRow,
  slug: string,
): Promise<Article> {
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
  return {
    ...toServedArticle(row, project),
    related: related.map((item) => toRelatedLink(item, project)),
  };
}

/** Every published article's URL on the website and its real modification time. */
export async function getSitemap(deps: ServiceDeps, project: ProjectRow): Promise<SitemapEntry[]> {
  const websiteUrl = project.website_url;
  if (!websiteUrl) {
    throw new AppError(
      'conflict',
      'The project has no website URL, so sitemap URLs cannot be built. Set websiteUrl on the project.',
    );
  }
  const rows = await articles.listSitemapRows(deps.db, project.id);
  return rows.map((row) => toSitemapEntry(row, websiteUrl, project));
}

function orderBySlugs<T extends { slug: string }>(rows: T[], slugs: string[]): T[] {
  const bySlug = new Map(rows.map((row) => [row.slug, row]));
  return slugs.flatMap((slug) => bySlug.get(slug) ?? []);
}
