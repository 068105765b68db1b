import type { Pagination } from '@folio/schema';
import type { ProjectRow } from '../db/tables.ts';
import { AppError } from '../errors.ts';
import * as articles from '../store/articles.ts';
import { servedJsonOf, sitemapEntryWriter, toRelatedLink } from './article-view.ts';
import type { ServiceDeps } from './deps.ts';
import { inRuns, type JsonText, jsonArray } from './json-runs.ts';
import type { ListingIndex } from './listing-index.ts';
import { type PageQuery, paginate } from './pagination.ts';
import { normalizeSlug } from './slugs.ts';

// When the author names no related articles, this many of the newest are offered instead.
const DEFAULT_RELATED_COUNT = 3;

/**
 * The delivery answers' data as JSON text, assembled from each article's stored served JSON: a
 * page of twenty articles is joined, never parsed and serialized again. The HTTP layer puts
 * the contract's envelope around it.
 */

/** An answer's `data` as JSON text (a list's in chunks, `json-runs.ts`), and the `pagination` of a list. */
export interface DataJson<Text extends JsonText = JsonText> {
  data: Text;
  pagination?: Pagination;
}
export interface DeliveryDeps extends ServiceDeps {
  listing: ListingIndex;
  /** FOLIO_CHANGES_RETENTION: how old a changes-feed cursor may be; 30 days if not given. */
  changesRetentionMs?: number;
  /** This database's history of changes (`change-history.ts`), named in every feed cursor. */
  changeHistory: string;
}

/** A page of published articles, newest first. */
export async function listPublishedArticles(
  deps: DeliveryDeps,
  project: ProjectRow,
  query: PageQuery,
): Promise<DataJson> {
  const total = await deps.listing.total(deps.db, project);
  const { pagination, offset } = paginate(query, total);
  const rows = offset < total ? await deps.listing.page(deps.db, project, offset, pagination.limit) : [];
  return { data: jsonArray(servedInRuns(deps, project, rows)), pagination };
}

/** The served JSON of `rows`, a run at a time (`json-runs.ts`). */
async function* servedInRuns(
  deps: ServiceDeps,
  project: ProjectRow,
  rows: articles.ServedRow[],
): AsyncGenerator<(string | undefined)[]> {
  for (const run of inRuns(rows)) yield await servedOfRun(deps, project, run);
}

/**
 * The served JSON of each row of a run, in order: a long one, read without it, is read now; an
 * article deleted since its row was read is undefined (that write moved the version on).
 */
export async function servedOfRun(
  deps: ServiceDeps,
  project: ProjectRow,
  run: articles.ServedRow[],
): Promise<(string | undefined)[]> {
  const long = run.filter((row) => row.served === null && row.bytes !== null).map((row) => row.id);
  const read = await articles.servedOfIds(deps.db, project.id, long);
  return Promise.all(
    run.map((row) => {
      if (row.served !== null) return row.served;
      const served = row.bytes === null ? null : read.get(row.id);
      if (served === undefined) return undefined;
      return served ?? computeServed(deps, project, row.id);
    }),
  );
}

/**
 * The served JSON of an article stored before the column existed, from its whole row; undefined
 * when it was deleted since the page was read (that write moved the version on).
 */
async function computeServed(
  deps: ServiceDeps,
  project: ProjectRow,
  id: string,
): Promise<string | undefined> {
  const row = await articles.findArticle(deps.db, project.id, id);
  return row && servedJsonOf(row, project);
}

/** One published article with its related links; 404 for unpublished, deleted or unknown slugs. */
export async function getPublishedArticle(
  deps: ServiceDeps,
  project: ProjectRow,
  slug: string,
): Promise<DataJson<string>> {
  const row = await findPublishedBySlug(deps, project.id, slug);
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
  return { data: `${servedJsonOf(row, project).slice(0, -1)},"related":${links}}` };
}

// Slugs are stored in NFC, so any form of one finds its article; an article stored before
// that rule keeps the form it was sent in, and is still found by it.
async function findPublishedBySlug(deps: ServiceDeps, projectId: string, slug: string) {
  const normalized = normalizeSlug(slug);
  const row = await articles.findPublishedArticleBySlug(deps.db, projectId, normalized);
  if (row || normalized === slug) return row;
  return articles.findPublishedArticleBySlug(deps.db, projectId, slug);
}

// Articles per query while streaming the sitemap: memory stays bounded by one batch, which the
// database hands over as one row of joined strings. Chosen on a 100,000-article sitemap over
// HTTP (peak RSS and median time): on PostgreSQL, halving the batch cost time and saved no
// memory, doubling it saved a little time for more memory; on SQLite the size made no
// difference beyond noise.
const SITEMAP_BATCH = 2000;
// Entries per yielded string: small enough to die young (see the loop below).
const SITEMAP_CHUNK = 400;

/**
 * Every published article's URL on the website and its real modification time, as the JSON
 * text of an array in chunks: the whole sitemap of a large catalogue is never held in memory.
 */
export async function* streamSitemap(
  deps: ServiceDeps,
  project: ProjectRow,
  batch = SITEMAP_BATCH,
): AsyncGenerator<string> {
  const entry = sitemapEntryWriter(requireWebsiteUrl(project), project);
  const read = (after?: articles.ListCursor) => {
    const part = articles.listSitemapBatch(deps.db, project.id, after, batch);
    // Awaited below, unless the client went away first; then its failure is of no interest.
    part.catch(() => {});
    return part;
  };
  let next: Promise<articles.SitemapBatch | undefined> | undefined = read();
  let separator = '';
  yield '[';
  while (next) {
    const part: articles.SitemapBatch | undefined = await next;
    if (!part) break;
    // The next batch is read while this one is written: on PostgreSQL the round trip and the
    // query's own time overlap with the formatting instead of adding to it.
    next = part.count === batch ? read(part.last) : undefined;
    const slugs = part.slugs.split('\n');
    const times = part.updatedAt.split(',');
    // Chunks stay small enough for the young generation: large strings would live until a
    // full collection and hold the process's memory up.
    for (let start = 0; start < slugs.length; start += SITEMAP_CHUNK) {
      let entries = '';
      const end = Math.min(start + SITEMAP_CHUNK, slugs.length);
      for (let i = start; i < end; i++) {
        entries += `${separator}${entry(slugs[i]!, Number(times[i]))}`;
        separator = ',';
      }
      yield entries;
    }
  }
  yield ']';
}

/** The website URL the sitemap is built on; 409 when the project has none. */
export function requireWebsiteUrl(project: ProjectRow): string {
  if (!project.website_url) {
    throw new AppError(
      'conflict',
      'The project has no website URL, so sitemap URLs cannot be built. Set websiteUrl on the project.',
    );
  }
  return project.website_url;
}

/** `rows` in the order of `slugs`, the author's; slugs without a row are left out. */
export function orderBySlugs<T extends { slug: string }>(rows: T[], slugs: string[]): T[] {
  const bySlug = new Map(rows.map((row) => [row.slug, row]));
  return slugs.flatMap((slug) => bySlug.get(slug) ?? []);
}
