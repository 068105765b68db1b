import type { ProjectRow } from '../db/tables.ts';
import { AppError } from '../errors.ts';
import * as articles from '../store/articles.ts';
import { draftOf, toPreviewArticle, toRelatedLink } from './article-view.ts';
import { type DataJson, orderBySlugs } from './delivery.ts';
import type { ServiceDeps } from './deps.ts';
import { inRuns, jsonArray } from './json-runs.ts';
import { type PageQuery, paginate } from './pagination.ts';
import { normalizeSlug } from './slugs.ts';

/**
 * The preview perspective (contract, Part 2): every article of the project that is not
 * deleted, published or not, each shown as its draft when it has one. Read by preview keys and
 * preview tokens; built for each request, never cached: an editor expects the draft saved a
 * moment ago, and preview traffic is a handful of editors.
 */

// As for content keys: when the author names no related articles, this many others are offered.
const DEFAULT_RELATED_COUNT = 3;

/** A page of the preview perspective. */
export async function listPreviewArticles(
  deps: ServiceDeps,
  project: ProjectRow,
  query: PageQuery,
): Promise<DataJson> {
  const total = await articles.countAllArticles(deps.db, project.id);
  const { pagination, offset } = paginate(query, total);
  const ids =
    offset < total
      ? await articles.listPreviewPage(deps.db, project.id, { limit: pagination.limit, offset })
      : [];
  return { data: jsonArray(previewInRuns(deps, project, ids)), pagination };
}

/** The preview JSON of the articles `ids`, a run at a time (`json-runs.ts`). */
async function* previewInRuns(
  deps: ServiceDeps,
  project: ProjectRow,
  ids: articles.SizedId[],
): AsyncGenerator<string[]> {
  for (const run of inRuns(ids)) {
    const rows = await articles.rowsOfIds(deps.db, project.id, run);
    yield rows.map((row) => JSON.stringify(toPreviewArticle(row, project)));
  }
}

/**
 * One article of the preview perspective by its slug there, with related links in the same
 * perspective. `onlyId`: the request holds a preview token, good for that article alone.
 */
export async function getPreviewArticle(
  deps: ServiceDeps,
  project: ProjectRow,
  slug: string,
  onlyId?: string,
): Promise<DataJson<string>> {
  const normalized = normalizeSlug(slug);
  const row =
    (await articles.findPreviewArticleBySlug(deps.db, project.id, normalized)) ??
    (normalized === slug ? undefined : await articles.findPreviewArticleBySlug(deps.db, project.id, slug));
  if (onlyId !== undefined && row?.id !== onlyId) {
    throw new AppError('unauthorized', 'This preview token is for another article.');
  }
  if (!row) {
    const shown = slug.length > 80 ? `${slug.slice(0, 80)}…` : slug;
    throw new AppError('not_found', `No article has the slug "${shown}".`);
  }
  const article = toPreviewArticle(row, project);
  const own = draftOf(row)?.related ?? row.related;
  const wanted = [...new Set(JSON.parse(own) as string[])].filter((s) => s !== article.slug);
  const related =
    wanted.length > 0
      ? orderBySlugs((await articles.listPreviewBySlugs(deps.db, project.id, wanted)).map(shownLink), wanted)
      : (await articles.listLatestPreview(deps.db, project.id, row.id, DEFAULT_RELATED_COUNT)).map(shownLink);
  const links = related.map((item) => toRelatedLink(item, project));
  return { data: JSON.stringify({ ...article, related: links }) };
}

/** A related article's id, slug and title as the preview perspective shows them. */
function shownLink(row: articles.PreviewRelatedRow): articles.RelatedRow {
  if (row.draft === null) return { id: row.id, slug: row.slug, title: row.title };
  const draft = JSON.parse(row.draft) as { title: string };
  return { id: row.id, slug: row.draft_slug ?? row.slug, title: draft.title };
}
