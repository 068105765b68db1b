import { type BlockComponents, html, raw, renderBlocks, type SafeHtml } from '@folio/client';
import type { AdminArticle, Pagination, Project } from '@folio/schema';
import {
  confirmButton,
  csrfField,
  formError,
  layout,
  type PageContext,
  projectPath,
  timeTag,
} from './layout.ts';

// The dashboard makes no requests to other origins, so the preview names media instead of
// loading them: an image from the site's CDN or a YouTube player would each be one.
const previewComponents: BlockComponents = {
  image: (block, { html, safeHref }) => {
    const href = safeHref(block.url);
    const label = block.alt || block.url;
    return html`<figure class="media-placeholder"><p>Image (not loaded in the preview): ${href ? html`<a href="${href}">${label}</a>` : label}</p>${block.caption ? html`<figcaption>${block.caption}</figcaption>` : ''}</figure>`;
  },
  video: (block, { html, safeHref }) => {
    const href = safeHref(block.url);
    return html`<figure class="media-placeholder"><p>YouTube video (not loaded in the preview): ${href ? html`<a href="${href}">${block.title}</a>` : block.title}</p></figure>`;
  },
};

function articlePath(project: Project, article: AdminArticle): string {
  return `${projectPath(project.id)}/articles/${encodeURIComponent(article.id)}`;
}

function statusBadge(article: AdminArticle): SafeHtml {
  return article.published
    ? html`<span class="status succeeded">published</span>`
    : html`<span class="status draft">unpublished</span>`;
}

/** Publish or unpublish, and delete behind a confirmation. `back` is where to return. */
function articleActions(csrfToken: string, project: Project, article: AdminArticle, back: string): SafeHtml {
  const path = articlePath(project, article);
  const action = article.published ? 'unpublish' : 'publish';
  return html`<div class="actions">
    <form method="post" action="${path}/${action}">${csrfField(csrfToken)}<input type="hidden" name="back" value="${back}"><button type="submit" class="button small secondary" aria-label="${action === 'publish' ? 'Publish' : 'Unpublish'} ${article.title}">${action === 'publish' ? 'Publish' : 'Unpublish'}</button></form>
    ${confirmButton({
      action: `${path}/delete`,
      csrfToken,
      label: 'Delete…',
      question: `Delete "${article.title}" for good?`,
      confirmLabel: 'Delete article',
      small: true,
    })}
  </div>`;
}

/** Every article of a project, with a title search and paging. */
export function articlesPage(
  context: PageContext,
  project: Project,
  list: { data: AdminArticle[]; pagination: Pagination },
  search: string,
): string {
  const base = `${projectPath(project.id)}/articles`;
  const pageLink = (page: number) =>
    `${base}?${new URLSearchParams({ ...(search ? { q: search } : {}), page: String(page) })}`;
  const back = pageLink(list.pagination.page);
  const rows = list.data.map(
    (article) => html`<tr>
      <th scope="row"><a href="${articlePath(project, article)}">${article.title}</a><br><code class="muted">${article.slug}</code></th>
      <td>${statusBadge(article)}</td>
      <td>${timeTag(article.publishedAt)}</td>
      <td>${timeTag(article.updatedAt)}</td>
      <td>${articleActions(context.csrfToken, project, article, back)}</td>
    </tr>`,
  );
  const { pagination } = list;
  return layout({
    title: `${project.name}: Articles`,
    context,
    project: { id: project.id, name: project.name, current: 'articles' },
    body: html`<h1>Articles <span class="muted">· ${project.name}</span></h1>
<section class="card" aria-labelledby="articles-title">
  <h2 id="articles-title" class="sr-only">Article list</h2>
  <form method="get" action="${base}" class="inline" role="search">
    <label for="search">Search by title</label>
    <input id="search" name="q" type="search" value="${search}">
    <button type="submit" class="button secondary">Search</button>
    ${search ? html`<a href="${base}">Clear</a>` : ''}
  </form>
  ${formError(context.flash, 'articles')}
  <p class="muted" aria-live="polite">${pagination.total} article${pagination.total === 1 ? '' : 's'}${search ? html` with “${search}” in the title` : ''}</p>
  ${
    list.data.length === 0
      ? ''
      : html`<div class="table-wrap"><table>
    <caption class="sr-only">Articles, most recently updated first</caption>
    <thead><tr><th scope="col">Title</th><th scope="col">Status</th><th scope="col">Published</th><th scope="col">Updated</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
    <tbody>${rows}</tbody>
  </table></div>`
  }
  ${
    pagination.totalPages > 1
      ? html`<nav aria-label="Pages" class="pager">
    ${pagination.hasPrev ? html`<a href="${pageLink(pagination.page - 1)}" rel="prev">Previous</a>` : ''}
    <span>Page ${pagination.page} of ${pagination.totalPages}</span>
    ${pagination.hasNext ? html`<a href="${pageLink(pagination.page + 1)}" rel="next">Next</a>` : ''}
  </nav>`
      : ''
  }
</section>`,
  });
}

/** One article rendered with `@folio/client`'s renderer, as a site would show it. */
export function articlePreviewPage(context: PageContext, project: Project, article: AdminArticle): string {
  const back = articlePath(project, article);
  return layout({
    title: `${article.title}: Preview`,
    context,
    project: { id: project.id, name: project.name, current: 'articles' },
    body: html`<p><a href="${projectPath(project.id)}/articles">← All articles</a></p>
<section class="card" aria-labelledby="meta-title">
  <h2 id="meta-title" class="sr-only">Article details</h2>
  <dl class="facts">
    <dt>Status</dt><dd>${statusBadge(article)}</dd>
    <dt>Slug</dt><dd><code>${article.slug}</code></dd>
    <dt>Canonical path</dt><dd><code>${project.articlesPath}/${encodeURIComponent(article.slug)}</code></dd>
    <dt>Published</dt><dd>${timeTag(article.publishedAt)}</dd>
    <dt>Updated</dt><dd>${timeTag(article.updatedAt)}</dd>
  </dl>
  ${articleActions(context.csrfToken, project, article, back)}
  ${formError(context.flash, 'articles')}
</section>
<article class="preview card" aria-label="Preview">
  <p class="muted preview-note">Preview, rendered by <code>@folio/client</code> as a site renders it</p>
  <h1>${article.title}</h1>
  ${raw(renderBlocks(article.blocks, { components: previewComponents }))}
</article>`,
  });
}
