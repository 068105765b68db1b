import type { SitemapEntry } from './generated/schema.ts';

/**
 * The sitemaps.org limit of URLs per sitemap file.
 * @example
 * if (entries.length > SITEMAP_MAX_URLS) serveIndex(); else serve(sitemapXml(entries));
 */
export const SITEMAP_MAX_URLS = 50_000;

const XML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};
// Characters XML 1.0 forbids outright; they would make the whole file unreadable.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const XML_INVALID = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

const escapeXml = (value: string) =>
  value.replace(XML_INVALID, '').replace(/[&<>"']/g, (char) => XML_ESCAPES[char]!);

/** An absolute http(s) URL, else undefined: an index lists only fully-qualified sitemap URLs. */
function absoluteUrl(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
}

const XML_HEADER = '<?xml version="1.0" encoding="UTF-8"?>';
const NAMESPACE = 'http://www.sitemaps.org/schemas/sitemap/0.9';

// Judged after the characters XML cannot hold are dropped, which could leave nothing.
const nonEmpty = (value: unknown): value is string =>
  typeof value === 'string' && value.replace(XML_INVALID, '') !== '';

// Seed, Sitemap entry: `url` "becomes the loc value" and `lastModified` "becomes the lastmod
// value", so both are written as given, only escaped; an empty lastmod is left out.
function item(tag: 'url' | 'sitemap', url: string, modified: unknown): string {
  const lastmod = nonEmpty(modified) ? `<lastmod>${escapeXml(modified)}</lastmod>` : '';
  return `<${tag}><loc>${escapeXml(url)}</loc>${lastmod}</${tag}>`;
}

/**
 * A sitemap (sitemaps.org 0.9) of the entries: `loc` is the entry's `url` and `lastmod` its
 * `lastModified`, each exactly as given, XML-escaped (characters XML 1.0 cannot hold are
 * dropped). An entry with an empty `url` is skipped, since a `<url>` without a `loc` is
 * invalid; an empty `lastModified` writes no `lastmod`. More than 50,000 entries throw; split
 * them with `chunkSitemapEntries` and list the parts with `sitemapIndexXml`.
 * @example
 * sitemapXml(await client.getSitemap());
 * // '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="...">\n<url><loc>https://…</loc>…'
 */
export function sitemapXml(entries: readonly SitemapEntry[]): string {
  if (entries.length > SITEMAP_MAX_URLS) {
    throw new RangeError(
      `sitemapXml: ${entries.length} entries exceed ${SITEMAP_MAX_URLS} per file; use chunkSitemapEntries and sitemapIndexXml`,
    );
  }
  const urls: string[] = [];
  for (const entry of entries) {
    if (nonEmpty(entry?.url)) urls.push(item('url', entry.url, entry.lastModified));
  }
  return [XML_HEADER, `<urlset xmlns="${NAMESPACE}">`, ...urls, '</urlset>', ''].join('\n');
}

/** One sitemap file listed by an index: its URL and, optionally, when it last changed. */
export type SitemapIndexItem = string | { url: string; lastModified?: string };

/**
 * A sitemap index listing sitemap files, for sites with more than 50,000 URLs. Items whose URL
 * is not absolute http(s) are left out; `lastmod` is `lastModified` as given, XML-escaped.
 * @example
 * sitemapIndexXml(['https://example.com/sitemap-1.xml', 'https://example.com/sitemap-2.xml']);
 */
export function sitemapIndexXml(sitemaps: readonly SitemapIndexItem[]): string {
  if (sitemaps.length > SITEMAP_MAX_URLS) {
    throw new RangeError(`sitemapIndexXml: more than ${SITEMAP_MAX_URLS} sitemaps in one index`);
  }
  const items: string[] = [];
  for (const sitemap of sitemaps) {
    const { url, lastModified } =
      typeof sitemap === 'string' ? { url: sitemap, lastModified: undefined } : sitemap;
    const absolute = absoluteUrl(url);
    if (absolute) items.push(item('sitemap', absolute, lastModified));
  }
  return [XML_HEADER, `<sitemapindex xmlns="${NAMESPACE}">`, ...items, '</sitemapindex>', ''].join('\n');
}

/**
 * Splits entries into chunks of at most `size` (default 50,000), one per sitemap file.
 * @example
 * const parts = chunkSitemapEntries(entries);
 * const index = sitemapIndexXml(parts.map((_, i) => `https://example.com/sitemap-${i + 1}.xml`));
 */
export function chunkSitemapEntries<T>(entries: readonly T[], size: number = SITEMAP_MAX_URLS): T[][] {
  if (!Number.isInteger(size) || size < 1 || size > SITEMAP_MAX_URLS) {
    throw new RangeError(`chunkSitemapEntries: size must be an integer from 1 to ${SITEMAP_MAX_URLS}`);
  }
  const chunks: T[][] = [];
  for (let start = 0; start < entries.length; start += size) chunks.push(entries.slice(start, start + size));
  return chunks;
}
