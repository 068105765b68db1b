import {
  type Article,
  type ArticleListItem,
  type ArticleStatus,
  type HtmlValue,
  html,
  type Pagination,
  type PreviewArticle,
  raw,
  renderBlocks,
  renderHead,
  type SafeHtml,
} from '@folio/client';
import { excerpt } from './excerpt.ts';

const dateFormat = new Intl.DateTimeFormat('en', { dateStyle: 'long', timeZone: 'UTC' });

/** A page's `<title>`: what it shows, then the site's name. */
const titleOf = (page: string, siteName: string) => `${page} — ${siteName}`;

function layout(siteName: string, head: HtmlValue, main: HtmlValue, banner: HtmlValue = ''): string {
  return `<!doctype html>\n${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${head}
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/site.css">
</head>
<body>
${banner}<header class="site-header"><div class="wrap"><a class="brand" href="/blog">${siteName}</a></div></header>
<main class="wrap">${main}</main>
<footer class="site-footer"><div class="wrap">Served by Folio · rendered with @folio/client</div></footer>
</body>
</html>`}`;
}

function date(iso: string): SafeHtml {
  return html`<time datetime="${iso}">${dateFormat.format(new Date(iso))}</time>`;
}

/** Where list page `page` lives: page 1 only at `/blog`, the address its canonical names. */
function listPath(page: number): string {
  return page > 1 ? `/blog?page=${page}` : '/blog';
}

/** The article list, one page of it. */
export function listPage(
  site: { name: string; origin: string },
  articles: ArticleListItem[],
  pagination: Pagination,
): string {
  const path = listPath(pagination.page);
  const head = html`<title>${titleOf(pagination.page > 1 ? `Blog, page ${pagination.page}` : 'Blog', site.name)}</title>
<meta name="description" content="Articles from ${site.name}">
<link rel="canonical" href="${site.origin}${path}">`;
  const items = articles.map(
    (article) => html`<li class="post">
<h2><a href="${article.seo.canonicalPath}">${article.title}</a></h2>
<p class="meta">${date(article.publishedAt)}</p>
<p>${excerpt(article.seo.description)}</p>
</li>`,
  );
  const nav = html`<nav class="pager" aria-label="Pages">
${pagination.hasPrev ? html`<a rel="prev" href="${listPath(pagination.page - 1)}">← Newer</a>` : ''}
<span>Page ${pagination.page} of ${Math.max(1, pagination.totalPages)}</span>
${pagination.hasNext ? html`<a rel="next" href="${listPath(pagination.page + 1)}">Older →</a>` : ''}
</nav>`;
  const body =
    articles.length > 0
      ? html`<h1>Blog</h1><ul class="posts">${items}</ul>${nav}`
      : html`<h1>Blog</h1><p>Nothing here yet.</p>${nav}`;
  return layout(site.name, head, body);
}

/** One article: head tags from its seo, body from its blocks, and its related links. */
export function articlePage(site: { name: string; origin: string }, article: Article): string {
  return layout(site.name, articleHead(site, article), articleBody(article));
}

/** An article's head tags, its `<title>` followed by the site's name. */
function articleHead(site: { name: string; origin: string }, article: Article | PreviewArticle): SafeHtml {
  const options = { origin: site.origin, siteName: site.name, titleTemplate: titleOf('%s', site.name) };
  return raw(renderHead(article, options));
}

function articleBody(article: Article | PreviewArticle): SafeHtml {
  const related =
    article.related.length > 0
      ? html`<aside class="related" aria-labelledby="related-heading">
<h2 id="related-heading">Related reading</h2>
<ul>${article.related.map((item) => html`<li><a href="${item.canonicalPath}">${item.title}</a></li>`)}</ul>
</aside>`
      : '';
  const { publishedAt, updatedAt } = article;
  const meta =
    publishedAt === null
      ? html`Not published yet · saved ${date(updatedAt)}`
      : html`${date(publishedAt)}${updatedAt !== publishedAt ? html` · updated ${date(updatedAt)}` : ''}`;
  return html`<article class="article">
<header><h1>${article.title}</h1><p class="meta">${meta}</p></header>
${raw(renderBlocks(article.blocks))}
</article>
${related}`;
}

const PREVIEW_NOTES: Record<ArticleStatus, string> = {
  changed: 'Unpublished changes. Visitors still see the published version.',
  unpublished: 'Not published. Visitors cannot see this article yet.',
  published: 'No unpublished changes: this is what visitors see.',
};

/**
 * An article as a preview link shows it: its draft, under a banner that says so, and kept out
 * of search engines.
 */
export function previewPage(site: { name: string; origin: string }, article: PreviewArticle): string {
  const head = html`<meta name="robots" content="noindex">
${articleHead(site, article)}`;
  const banner = html`<div class="preview-banner" role="status"><div class="wrap">
<strong class="preview-label">Preview</strong> <span>${PREVIEW_NOTES[article.status]}</span>
</div></div>
`;
  return layout(site.name, head, articleBody(article), banner);
}

/** The page for a preview link whose token is missing, expired, or for another article. */
export function previewRefusedPage(site: { name: string }): string {
  return layout(
    site.name,
    html`<title>${titleOf('Preview link not valid', site.name)}</title><meta name="robots" content="noindex">`,
    html`<h1>This preview link is no longer valid</h1>
<p>A preview link works for one hour, for one article, and stops when the article is deleted.
Open the article in Folio's dashboard and choose <strong>Preview on site</strong> for a new link.</p>
<p><a href="/blog">See the published articles</a>.</p>`,
  );
}

/** The page for an address that holds nothing. */
export function notFoundPage(site: { name: string }): string {
  return layout(
    site.name,
    html`<title>${titleOf('Not found', site.name)}</title><meta name="robots" content="noindex">`,
    html`<h1>Not found</h1><p>There is no article at this address. <a href="/blog">See all articles</a>.</p>`,
  );
}

/** The page for a failure to reach Folio. */
export function errorPage(site: { name: string }): string {
  return layout(
    site.name,
    html`<title>${titleOf('Something went wrong', site.name)}</title>`,
    html`<h1>Something went wrong</h1><p>The articles could not be loaded. Please try again in a moment.</p>`,
  );
}
