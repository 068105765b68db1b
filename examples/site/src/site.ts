import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createClient, FolioError, type SitemapEntry, sitemapXml } from '@folio/client';
import { createWebhookHandler } from '@folio/client/node';
import type { SiteConfig } from './config.ts';
import { articlePage, errorPage, listPage, notFoundPage, previewPage, previewRefusedPage } from './pages.ts';

interface CachedPage {
  status: number;
  type: string;
  body: string;
  at: number;
}

type Page = Omit<CachedPage, 'at'>;

const HTML = 'text/html; charset=utf-8';
/**
 * A preview shows a draft to whoever holds its link: no cache may keep it (the site's own cache
 * is skipped too), no search engine may index it, and no link followed from it may carry the
 * token away in a Referer.
 */
const PREVIEW_HEADERS = {
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex',
  'referrer-policy': 'no-referrer',
};

export interface Site {
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
  /** Forgets every rendered page (what a Folio webhook triggers). */
  purge(): void;
}

/** The site's own files, by the path they are served at. */
const STATIC_FILES: Record<string, { file: URL; type: string }> = {
  '/assets/site.css': {
    file: new URL('../public/site.css', import.meta.url),
    type: 'text/css; charset=utf-8',
  },
  '/favicon.svg': { file: new URL('../public/favicon.svg', import.meta.url), type: 'image/svg+xml' },
};
// A safety net only: webhooks purge the cache as soon as content changes.
const CACHE_TTL_MS = 10 * 60_000;
// Any address may be an article's, so any address can leave a 404 page here: only the most
// recently rendered pages are kept, or requests for made-up addresses would grow the process
// without bound.
const CACHE_MAX_PAGES = 1_000;

/**
 * The example blog. Pages are rendered from Folio on first request and kept until a verified
 * Folio webhook says content changed.
 */
export function createSite(
  config: SiteConfig,
  options: { now?: () => number; maxCachedPages?: number } = {},
): Site {
  const now = options.now ?? Date.now;
  const maxCachedPages = options.maxCachedPages ?? CACHE_MAX_PAGES;
  const folio = createClient({
    baseUrl: config.folioUrl,
    projectId: config.projectId,
    contentKey: config.contentKey,
  });
  const site = { name: config.siteName, origin: config.origin };
  const cache = new Map<string, CachedPage>();
  const purge = () => cache.clear();
  const remember = (key: string, page: CachedPage) => {
    cache.delete(key);
    // A Map iterates in insertion order: the first key is the oldest page.
    if (cache.size >= maxCachedPages) cache.delete(cache.keys().next().value!);
    cache.set(key, page);
  };
  const onWebhook = config.webhookSecret
    ? createWebhookHandler({ secret: config.webhookSecret, onEvent: purge })
    : undefined;

  async function render(path: string, query: URLSearchParams): Promise<Page> {
    const htmlPage = (status: number, body: string) => ({ status, type: HTML, body });
    if (path === '/blog') {
      const page = pageNumber(query.get('page'));
      if (page === undefined) return htmlPage(404, notFoundPage(site));
      const { data, pagination } = await folio.listArticles({ page, limit: 10 });
      if (data.length === 0 && page > 1) return htmlPage(404, notFoundPage(site));
      return htmlPage(200, listPage(site, data, pagination));
    }
    if (path === '/sitemap.xml') {
      return {
        status: 200,
        type: 'application/xml; charset=utf-8',
        body: sitemapXml(await sitemapEntries()),
      };
    }
    if (path === '/robots.txt') {
      return {
        status: 200,
        type: 'text/plain; charset=utf-8',
        body: `User-agent: *\nAllow: /\nSitemap: ${config.origin}/sitemap.xml\n`,
      };
    }
    return renderArticle(path);
  }

  // Folio builds sitemap URLs on the project's Website URL and answers 409 while it has none;
  // the site knows its own origin, and builds them from the articles' canonical paths then.
  async function sitemapEntries(): Promise<SitemapEntry[]> {
    try {
      return await folio.getSitemap();
    } catch (error) {
      if (!(error instanceof FolioError && error.status === 409)) throw error;
      const entries: SitemapEntry[] = [];
      for await (const article of folio.articles()) {
        entries.push({
          url: `${config.origin}${article.seo.canonicalPath}`,
          lastModified: article.updatedAt,
        });
      }
      return entries;
    }
  }

  // Any other path may be an article's: Folio builds each canonical path on the project's
  // "Articles live under" setting (`/blog/my-post`, `/news/my-post`, or `/my-post` at the site
  // root), which the site does not know, so the last segment is taken as the slug.
  async function renderArticle(path: string): Promise<Page> {
    const notFound = { status: 404, type: HTML, body: notFoundPage(site) };
    if (path.endsWith('/') || path.includes('//')) return notFound;
    let slug: string;
    try {
      slug = decodeURIComponent(path.slice(path.lastIndexOf('/') + 1));
    } catch {
      return notFound;
    }
    const article = await folio.getArticle(slug);
    // Only at its canonical path: any other path ending in the slug would be a second URL for it.
    if (!article || article.seo.canonicalPath !== path) return notFound;
    return { status: 200, type: HTML, body: articlePage(site, article) };
  }

  // Folio's "Preview on site" opens `previewUrl`, here `/preview?slug={slug}&token={token}`: the
  // draft is read with the link's token, never with the site's key, and never cached.
  async function renderPreview(query: URLSearchParams): Promise<Page> {
    const slug = query.get('slug');
    const token = query.get('token');
    const refused = { status: 401, type: HTML, body: previewRefusedPage(site) };
    // The client refuses anything but a preview token before sending; a visitor's made-up one
    // is refused here like an expired one.
    if (!slug || !token?.startsWith('folio_pt_')) return refused;
    try {
      const article = await folio.getArticle(slug, { previewToken: token });
      return { status: 200, type: HTML, body: previewPage(site, article) };
    } catch (error) {
      // Expired, for another article, or its article deleted: Folio answers 401.
      if (error instanceof FolioError && error.status === 401) return refused;
      throw error;
    }
  }

  /** The page `make` renders, or the error page when Folio could not be read. */
  async function orErrorPage(make: () => Promise<Page>): Promise<Page> {
    try {
      return await make();
    } catch (error) {
      console.error(
        'example site: could not load from Folio',
        error instanceof FolioError ? error.message : error,
      );
      return { status: 502, type: HTML, body: errorPage(site) };
    }
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://site.invalid');
    if (url.pathname === '/webhooks/folio') {
      if (onWebhook) return onWebhook(request, response);
      response.writeHead(404).end();
      return;
    }
    const staticFile = Object.hasOwn(STATIC_FILES, url.pathname) ? STATIC_FILES[url.pathname] : undefined;
    if (staticFile) {
      response.writeHead(200, { 'content-type': staticFile.type, 'cache-control': 'public, max-age=3600' });
      response.end(await readFile(staticFile.file));
      return;
    }
    if (url.pathname === '/') return redirect(response, '/blog');
    // Browsers and feed readers ask for /favicon.ico whatever the page's icon link says.
    if (url.pathname === '/favicon.ico') return redirect(response, '/favicon.svg');
    // Seed rule 4: article URLs have no trailing slash, so no page here has one.
    if (url.pathname.endsWith('/')) {
      return redirect(response, `${withoutTrailingSlash(url.pathname)}${url.search}`);
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (url.pathname === '/preview') {
      const page = await orErrorPage(() => renderPreview(url.searchParams));
      response.writeHead(page.status, { 'content-type': page.type, ...PREVIEW_HEADERS });
      response.end(request.method === 'HEAD' ? undefined : page.body);
      return;
    }
    const key = `${url.pathname}?${url.searchParams}`;
    let page = cache.get(key);
    if (!page || now() - page.at > CACHE_TTL_MS) {
      page = { ...(await orErrorPage(() => render(url.pathname, url.searchParams))), at: now() };
      if (page.status === 200 || page.status === 404) remember(key, page);
    }
    response.writeHead(page.status, { 'content-type': page.type, 'cache-control': 'no-cache' });
    response.end(request.method === 'HEAD' ? undefined : page.body);
  }

  return { handle, purge };
}

/**
 * The list page `?page=` asks for (1 without it), or undefined for anything but the digits the
 * site's own links write. `Number()` also reads `0x2`, ` 1` or `1e0`, which would make second
 * addresses of a page; and past the largest safe integer `String()` writes an exponent, which
 * Folio refuses as a page.
 */
function pageNumber(raw: string | null): number | undefined {
  if (raw === null) return 1;
  if (!/^[1-9][0-9]*$/.test(raw)) return undefined;
  const page = Number(raw);
  return Number.isSafeInteger(page) ? page : undefined;
}

function redirect(response: ServerResponse, location: string): void {
  response.writeHead(301, { location }).end();
}

/**
 * `/news/my-post/` → `/news/my-post`, with one leading slash: a path such as `/.//host/`
 * parses to `//host/`, and `//host` in a Location header would send the browser to another site.
 */
function withoutTrailingSlash(path: string): string {
  let start = 0;
  let end = path.length;
  while (path[start] === '/') start += 1;
  while (end > start && path[end - 1] === '/') end -= 1;
  return `/${path.slice(start, end)}`;
}
