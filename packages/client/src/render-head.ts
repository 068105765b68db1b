import { isSafeSource } from './generated/links.ts';
import type { ArticleListItem } from './generated/schema.ts';
import { html, raw, type SafeHtml } from './html.ts';
import { serializeJsonLd } from './json-ld.ts';

/**
 * The fields of an article that `renderHead` reads; a list item or a full article will do, and
 * so will a preview article (`publishedAt` null until first published: no published time).
 */
export type HeadArticle = Pick<ArticleListItem, 'title' | 'seo'> &
  Partial<Pick<ArticleListItem, 'updatedAt'>> & { publishedAt?: string | null };

/** Options of `renderHead`. */
export interface RenderHeadOptions {
  /** The site's origin, e.g. `https://www.example.com`; a path or trailing slash is ignored. */
  origin: string;
  /** The site's name, for `og:site_name`. */
  siteName?: string;
  /**
   * The `<title>` around the article's title, which `%s` stands for: `'%s — Example'`. Open
   * Graph and Twitter keep the article's own title (`og:site_name` names the site).
   */
  titleTemplate?: string;
}

/**
 * The site origin of `origin`, refusing anything but http(s) so a canonical URL can never
 * point at another scheme.
 */
function siteOrigin(origin: string): string {
  const url = parseUrl(origin);
  if (url?.protocol !== 'https:' && url?.protocol !== 'http:') {
    throw new TypeError(`renderHead: origin must be an http(s) URL, got ${JSON.stringify(origin)}`);
  }
  return url.origin;
}

/**
 * `text` as a URL, resolved against `base` when given; undefined for one without a scheme
 * ("www.example.com"), an unset option, or one no browser could load.
 */
function parseUrl(text: string, base?: string): URL | undefined {
  try {
    return new URL(text, base);
  } catch {
    return undefined;
  }
}

const SLASH = 0x2f;

/**
 * The canonical URL of an article: origin + `seo.canonicalPath`, with no trailing slash (seed
 * rule 4).
 * @example
 * canonicalUrl('https://example.com/', '/blog/hello/'); // 'https://example.com/blog/hello'
 */
export function canonicalUrl(origin: string, canonicalPath: string): string {
  const path = canonicalPath.startsWith('/') ? canonicalPath : `/${canonicalPath}`;
  // A loop, not /\/+$/: that expression retries from every slash of a run that is not at the
  // end, so a path of many slashes and then a letter took seconds.
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === SLASH) end--;
  return siteOrigin(origin) + path.slice(0, end);
}

const meta = (key: 'name' | 'property', name: string, content: string | null | undefined) =>
  content ? html`<meta ${raw(key)}="${name}" content="${content}">` : '';

/**
 * Head tags for an article page (seed rule 4): title, meta description, canonical link, Open
 * Graph and Twitter tags, and exactly one JSON-LD script holding `seo.jsonLd` as given, with
 * every `<` written as `\u003c`. Values are escaped; one tag per line.
 * @example
 * const head = renderHead(article, { origin: 'https://www.example.com', siteName: 'Example' });
 * // '<title>Hello</title>\n<meta name="description" content="...">\n<link rel="canonical" ...'
 */
export function renderHead(article: HeadArticle, options: RenderHeadOptions): string {
  const { seo } = article;
  const url = canonicalUrl(options.origin, seo.canonicalPath);
  const title = seo.title || article.title;
  const ogTitle = seo.ogTitle || title;
  // A function replacement: `$&` or `$'` in a title is text, not a replacement pattern.
  const documentTitle = options.titleTemplate ? options.titleTemplate.replace('%s', () => title) : title;
  const ogDescription = seo.ogDescription || seo.description;
  // og:image must be absolute; a site path is resolved against the origin. The link rule's
  // host part is looser than a URL parser (`https://a<b/c.png` passes it, and the server serves
  // such an image block's url as ogImage), so one that does not parse is left out, not thrown.
  const image =
    typeof seo.ogImage === 'string' && isSafeSource(seo.ogImage)
      ? parseUrl(seo.ogImage, siteOrigin(options.origin))?.href
      : undefined;
  const isArticle = (seo.ogType || 'article') === 'article';
  const jsonLd = serializeJsonLd(seo.jsonLd);
  const tags: (SafeHtml | string)[] = [
    html`<title>${documentTitle}</title>`,
    meta('name', 'description', seo.description),
    html`<link rel="canonical" href="${url}">`,
    meta('property', 'og:type', seo.ogType || 'article'),
    meta('property', 'og:title', ogTitle),
    meta('property', 'og:description', ogDescription),
    meta('property', 'og:url', url),
    meta('property', 'og:image', image),
    meta('property', 'og:site_name', options.siteName),
    meta('property', 'article:published_time', isArticle ? article.publishedAt : undefined),
    meta('property', 'article:modified_time', isArticle ? article.updatedAt : undefined),
    meta('name', 'twitter:card', image ? 'summary_large_image' : 'summary'),
    meta('name', 'twitter:title', ogTitle),
    meta('name', 'twitter:description', ogDescription),
    meta('name', 'twitter:image', image),
    // Not escaped as HTML: script content is raw text, made safe by serializeJsonLd.
    jsonLd && seo.jsonLd !== null ? html`<script type="application/ld+json">${raw(jsonLd)}</script>` : '',
  ];
  return tags
    .map(String)
    .filter((tag) => tag !== '')
    .join('\n');
}
