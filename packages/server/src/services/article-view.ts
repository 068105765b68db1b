import type {
  AdminArticle,
  ArticleListItem,
  ArticleStatus,
  Block,
  PreviewListItem,
  RelatedLink,
  Seo,
  SeoInput,
  SitemapEntry,
} from '@folio/schema';
import type { ArticleRow, ProjectRow, UnservedArticleRow } from '../db/tables.ts';
import type { RelatedRow, SitemapRow } from '../store/articles.ts';
import { isoTime } from './iso-time.ts';

/** The project settings that shape served URLs. */
export type SiteSettings = Pick<ProjectRow, 'website_url' | 'articles_path'>;

const DESCRIPTION_MAX = 160;

/** Articles path + `/` + percent-encoded slug; never a trailing slash. */
export function canonicalPath(site: SiteSettings, slug: string): string {
  return `${site.articles_path}/${encodeURIComponent(slug)}`;
}

/** What a served article is made of. */
export type ServedSource = Pick<
  ArticleRow,
  'id' | 'slug' | 'title' | 'blocks' | 'seo' | 'published_at' | 'updated_at'
>;

/** An article as the delivery API serves it, without `related`. */
export function toServedArticle(row: ServedSource, site: SiteSettings): ArticleListItem {
  const blocks = JSON.parse(row.blocks) as Block[];
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    blocks,
    seo: buildSeo(row, blocks, JSON.parse(row.seo) as SeoInput, site),
    publishedAt: isoTime(row.published_at ?? row.updated_at),
    updatedAt: isoTime(row.updated_at),
  };
}

/** The served list item as JSON text: what the `served` column stores. */
export function servedJson(row: ServedSource, site: SiteSettings): string {
  return JSON.stringify(toServedArticle(row, site));
}

/** The stored served JSON, or for rows written before it was stored, computed now. */
export function servedJsonOf(row: ArticleRow, site: SiteSettings): string {
  return row.served ?? servedJson(row, site);
}

export function toRelatedLink(row: RelatedRow, site: SiteSettings): RelatedLink {
  return { id: row.id, slug: row.slug, title: row.title, canonicalPath: canonicalPath(site, row.slug) };
}

export function toSitemapEntry(row: SitemapRow, websiteUrl: string, site: SiteSettings): SitemapEntry {
  return { url: `${websiteUrl}${canonicalPath(site, row.slug)}`, lastModified: isoTime(row.updated_at) };
}

/**
 * The sitemap entry of a row as JSON text, for one website: the text of
 * `JSON.stringify(toSitemapEntry(row, websiteUrl, site))` without an object per article, since a
 * large catalogue's sitemap writes one per published article.
 */
export function sitemapEntryWriter(
  websiteUrl: string,
  site: SiteSettings,
): (slug: string, updatedAt: number) => string {
  // Only the URL prefix can need escaping: percent-encoded slugs and ISO times never do.
  const head = `{"url":${JSON.stringify(`${websiteUrl}${site.articles_path}/`).slice(0, -1)}`;
  return (slug, updatedAt) => `${head}${encodeURIComponent(slug)}","lastModified":"${isoTime(updatedAt)}"}`;
}

/** An article as the management API shows it: what was ingested, and its state. */
export function toAdminArticle(row: UnservedArticleRow): AdminArticle {
  return JSON.parse(adminArticleJson(row)) as AdminArticle;
}

/**
 * `toAdminArticle`'s JSON text, written around the stored JSON of the blocks, seo and related
 * (ingest validated them) rather than parsed and serialized again: a list of large articles is
 * written without holding their blocks as objects.
 */
export function adminArticleJson(row: UnservedArticleRow): string {
  const draft = draftOf(row);
  const draftJson = draft
    ? `{"slug":${JSON.stringify(draft.slug)},"title":${JSON.stringify(draft.title)},"blocks":${draft.blocks},"seo":${draft.seo},"related":${draft.related},"updatedAt":${timeJson(draft.updatedAt)}}`
    : 'null';
  return (
    `{"id":${JSON.stringify(row.id)},"slug":${JSON.stringify(row.slug)},"title":${JSON.stringify(row.title)},` +
    `"blocks":${row.blocks},"seo":${row.seo},"related":${row.related},"published":${row.published === 1},` +
    `"publishedAt":${timeJson(row.published_at)},"updatedAt":${timeJson(row.updated_at)},` +
    `"createdAt":${timeJson(row.created_at)},"draft":${draftJson},` +
    `"publishAt":${timeJson(row.publish_at)},"unpublishAt":${timeJson(row.unpublish_at)}}`
  );
}

function timeJson(at: number | null): string {
  return at === null ? 'null' : `"${isoTime(at)}"`;
}

/**
 * A draft as the `draft` column stores it: the content columns' texts (blocks, seo and related
 * as JSON text, as the article's own columns hold them).
 */
export type StoredDraft = Pick<ArticleRow, 'slug' | 'title' | 'blocks' | 'seo' | 'related'>;

/** The article's draft and when it was saved, or undefined when it has none. */
export function draftOf(
  row: Pick<ArticleRow, 'draft' | 'draft_updated_at' | 'updated_at'>,
): (StoredDraft & { updatedAt: number }) | undefined {
  if (row.draft === null) return undefined;
  return { ...(JSON.parse(row.draft) as StoredDraft), updatedAt: row.draft_updated_at ?? row.updated_at };
}

/** Where the article stands in the preview perspective. */
export function articleStatus(row: Pick<ArticleRow, 'published' | 'draft'>): ArticleStatus {
  if (row.published !== 1) return 'unpublished';
  return row.draft === null ? 'published' : 'changed';
}

/** The article as the preview perspective shows it: its draft's content when it has one. */
export function previewRow<Row extends UnservedArticleRow>(row: Row): Row {
  const draft = draftOf(row);
  if (!draft) return row;
  const { updatedAt, ...content } = draft;
  return { ...row, ...content, updated_at: updatedAt };
}

/** An article in the preview perspective, as a preview key's list shows it. */
export function toPreviewArticle(row: UnservedArticleRow, site: SiteSettings): PreviewListItem {
  const shown = previewRow(row);
  return {
    ...toServedArticle(shown, site),
    publishedAt: row.published_at === null ? null : isoTime(row.published_at),
    status: articleStatus(row),
  };
}

function buildSeo(row: ServedSource, blocks: Block[], input: SeoInput, site: SiteSettings): Seo {
  const path = canonicalPath(site, row.slug);
  const title = input.title ?? row.title;
  const description = input.description ?? firstParagraphSummary(blocks);
  const ogImage = input.ogImage !== undefined ? input.ogImage : firstImageUrl(blocks, site);
  return {
    title,
    description,
    canonicalPath: path,
    ogTitle: input.ogTitle ?? title,
    ogDescription: input.ogDescription ?? description,
    ogImage,
    ogType: input.ogType ?? 'article',
    jsonLd: input.jsonLd ?? blogPosting(row, { title, description, path, ogImage }, site),
  };
}

function blogPosting(
  row: ServedSource,
  seo: { title: string; description: string; path: string; ogImage: string | null },
  site: SiteSettings,
): Record<string, unknown> {
  const url = site.website_url ? `${site.website_url}${seo.path}` : undefined;
  return {
    '@context': 'https://schema.org',
    '@type': 'BlogPosting',
    headline: seo.title,
    description: seo.description,
    datePublished: isoTime(row.published_at ?? row.updated_at),
    dateModified: isoTime(row.updated_at),
    ...(url ? { url, mainEntityOfPage: { '@type': 'WebPage', '@id': url } } : {}),
    ...(seo.ogImage ? { image: seo.ogImage } : {}),
  };
}

/** The first paragraph's text, cut at a word boundary to at most 160 characters. */
export function firstParagraphSummary(blocks: Block[]): string {
  const paragraph = blocks.find((block) => block.type === 'paragraph');
  if (!paragraph) return '';
  const text = paragraph.content
    .map((run) => run.text)
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
  if (text.length <= DESCRIPTION_MAX) return text;
  const cut = text.slice(0, DESCRIPTION_MAX + 1);
  const boundary = cut.lastIndexOf(' ');
  if (boundary > 0) return cut.slice(0, boundary).trimEnd();
  // No word boundary: a hard cut, but not between the two halves of a character past U+FFFF
  // (an emoji), which would leave a lone surrogate: not Unicode text.
  const last = text.charCodeAt(DESCRIPTION_MAX - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? DESCRIPTION_MAX - 1 : DESCRIPTION_MAX);
}

/** The first image block's URL as an absolute URL, or null when it cannot be made absolute. */
function firstImageUrl(blocks: Block[], site: SiteSettings): string | null {
  const image = blocks.find((block) => block.type === 'image');
  if (!image) return null;
  const url = /^https?:\/\//i.test(image.url)
    ? image.url
    : site.website_url
      ? `${site.website_url}${image.url}`
      : null;
  // The block schema's host part is looser than a URL parser (`https://a<b/c.png` passes it);
  // ogImage is an absolute URL or null, as an ingested seo.ogImage that does not parse is refused.
  return url !== null && URL.canParse(url) ? url : null;
}
