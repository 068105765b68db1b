import type { FolioArticleData } from '@folio/astro';

/** Articles per index page. */
export const PAGE_SIZE = 5;

/** One page of the index: its articles, newest first, and where its neighbours are. */
export interface IndexPage {
  articles: FolioArticleData[];
  page: number;
  totalPages: number;
  prev?: string;
  next?: string;
}

/** The index's address of page `page`: `/` for the first, `/page/2` and on for the others. */
export const indexPath = (page: number): string => (page <= 1 ? '/' : `/page/${page}`);

/** Page `page` (1-based) of the index, or undefined past the last page. */
export function indexPage(all: readonly FolioArticleData[], page: number): IndexPage | undefined {
  const sorted = [...all].sort(
    (a, b) => b.publishedAt.getTime() - a.publishedAt.getTime() || (a.id < b.id ? -1 : 1),
  );
  const totalPages = Math.max(1, Math.ceil(sorted.length / PAGE_SIZE));
  if (!Number.isInteger(page) || page < 1 || page > totalPages) return undefined;
  return {
    articles: sorted.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE),
    page,
    totalPages,
    ...(page > 1 ? { prev: indexPath(page - 1) } : {}),
    ...(page < totalPages ? { next: indexPath(page + 1) } : {}),
  };
}

// The longest name a file system takes for one directory, in bytes.
const MAX_NAME_BYTES = 255;

/**
 * Why an article cannot be a static page, or undefined when it can. Folio takes slugs a file
 * system or Astro cannot: a backslash, which Astro reads as a path separator, and a name longer
 * than a directory's (200 CJK characters are 600 bytes). Such an article is left out with a
 * warning naming it, rather than failing the build, and with it every deploy.
 */
export function unpageable(article: Pick<FolioArticleData, 'id' | 'seo'>): string | undefined {
  const param = articleParam(article);
  if (param.includes('\\')) return 'its slug holds a backslash, which Astro reads as a path separator';
  const longest = Math.max(...param.split('/').map((segment) => Buffer.byteLength(segment)));
  if (longest > MAX_NAME_BYTES) return `its slug is ${longest} bytes, over a file name's ${MAX_NAME_BYTES}`;
  return undefined;
}

/**
 * The route parameter of an article page: its canonical path without the leading slash,
 * percent-decoded once, since Astro encodes the parameters of the pages it writes.
 */
export const articleParam = (article: Pick<FolioArticleData, 'seo'>): string =>
  decodeURIComponent(article.seo.canonicalPath).replace(/^\/+/, '');
