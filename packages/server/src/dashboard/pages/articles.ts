import { html, type SafeHtml } from '@folio/client';
import type { Pagination, Project } from '@folio/schema';
import type { ArticleSummary } from '../../services/articles.ts';
import { articlePath, scheduleLines, stateBadges } from './article-state.ts';
import {
  confirmButton,
  copyable,
  csrfField,
  formMessage,
  layout,
  type PageContext,
  pager,
  projectPath,
  timeTag,
} from './layout.ts';

/**
 * Publish (the changes, when a draft waits), and unpublish and delete behind a confirmation:
 * both take the article off the site at once. `back` is where to return, `first` any action to
 * put before them.
 */
export function articleActions(
  csrfToken: string,
  project: Project,
  article: ArticleSummary,
  back: string,
  first: SafeHtml | '' = '',
): SafeHtml {
  const path = articlePath(project, article);
  const publish = (label: string, name: string) =>
    html`<form method="post" action="${path}/publish">${csrfField(csrfToken)}<input type="hidden" name="back" value="${back}"><button type="submit" class="button small secondary" aria-label="${name}">${label}</button></form>`;
  return html`<div class="actions">
    ${first}
    ${article.published && article.hasDraft ? publish('Publish changes', `Publish changes to ${article.title}`) : ''}
    ${
      article.published
        ? confirmButton({
            action: `${path}/unpublish`,
            csrfToken,
            label: 'Unpublish…',
            question: `Unpublish "${article.title}"? Sites stop getting it at once.`,
            confirmLabel: 'Unpublish article',
            small: true,
            subject: article.title,
            fields: { back },
          })
        : publish('Publish', `Publish ${article.title}`)
    }
    ${confirmButton({
      action: `${path}/delete`,
      csrfToken,
      label: 'Delete…',
      question: `Delete "${article.title}" for good?`,
      confirmLabel: 'Delete article',
      small: true,
      subject: article.title,
      fields: { back },
    })}
  </div>`;
}

export interface ArticlesPageData {
  project: Project;
  /** The server's public base URL, for the empty list's commands. */
  baseUrl: string;
  list: { data: ArticleSummary[]; pagination: Pagination };
  search: string;
}

/** Every article of a project, with a title search and paging; when there is none, how to add one. */
export function articlesPage(
  context: PageContext,
  { project, baseUrl, list, search }: ArticlesPageData,
): string {
  const base = `${projectPath(project.id)}/articles`;
  const pageLink = (page: number) =>
    `${base}?${new URLSearchParams({ ...(search ? { q: search } : {}), page: String(page) })}`;
  const back = pageLink(list.pagination.page);
  const rows = list.data.map(
    (article) => html`<tr>
      <th scope="row"><a href="${articlePath(project, article)}">${article.title}</a><br><code class="muted">${article.slug}</code></th>
      <td data-label="State">${stateBadges(article)}${scheduleLines(article).map((line) => html`<br><small>${line}</small>`)}</td>
      <td data-label="Published">${timeTag(article.publishedAt)}</td>
      <td data-label="Updated">${timeTag(article.updatedAt)}</td>
      <td class="row-actions">${articleActions(context.csrfToken, project, article, back)}</td>
    </tr>`,
  );
  const { pagination } = list;
  const empty = pagination.total === 0 && !search;
  return layout({
    title: listTitle(project, search, pagination.page),
    context,
    project: { id: project.id, name: project.name, current: 'articles' },
    body: html`<h1>Articles <span class="muted">· ${project.name}</span></h1>
<section class="card" aria-labelledby="articles-title">
  <h2 id="articles-title" class="sr-only">Article list</h2>
  ${
    empty
      ? ''
      : html`<form method="get" action="${base}" class="inline" role="search">
    <label for="search">Search by title</label>
    <input id="search" name="q" type="search" value="${search}">
    <button type="submit" class="button secondary">Search</button>
    ${search ? html`<a href="${base}">Clear</a>` : ''}
  </form>`
  }
  ${formMessage(context.flash, 'articles')}
  ${empty ? '' : html`<p class="muted" aria-live="polite">${pagination.total.toLocaleString('en')} article${pagination.total === 1 ? '' : 's'}${search ? html` with “${search}” in the title` : ''}</p>`}
  ${empty ? firstArticle(project, baseUrl) : ''}
  ${
    list.data.length === 0
      ? ''
      : html`<div class="table-wrap"><table class="stacked">
    <caption class="sr-only">Articles, most recently updated first</caption>
    <thead><tr><th scope="col">Title</th><th scope="col">State</th><th scope="col">Published</th><th scope="col">Updated</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
    <tbody>${rows}</tbody>
  </table></div>`
  }
  ${pager(pagination, pageLink, { label: 'Pages', words: ['Previous', 'Next'] })}
</section>`,
  });
}

// A long search is cut short in the title, which stays short; the page says it whole.
const TITLE_SEARCH = 30;

/** The list's title: which search and which page, so each reads apart in tabs and history. */
function listTitle(project: Project, search: string, page: number): string {
  const characters = [...search];
  const shown = characters.length > TITLE_SEARCH ? `${characters.slice(0, TITLE_SEARCH).join('')}…` : search;
  return [
    `${project.name}: Articles`,
    ...(search ? [`Search “${shown}”`] : []),
    ...(page > 1 ? [`Page ${page}`] : []),
  ].join(' · ');
}

// The smallest article the management API takes: one paragraph, published at once.
const FIRST_ARTICLE = {
  slug: 'hello-world',
  title: 'Hello, world',
  blocks: [{ type: 'paragraph', content: [{ text: 'My first article.' }] }],
  published: true,
};

/** The empty list's next steps: a PUT to paste, the CLI's import, and the example article. */
function firstArticle(project: Project, baseUrl: string): SafeHtml {
  const url = `${baseUrl}/admin/v1/projects/${encodeURIComponent(project.id)}/articles/${FIRST_ARTICLE.slug}`;
  const curl = [
    `curl -X PUT "${url}" \\`,
    '  -H "Authorization: Bearer $FOLIO_ADMIN_TOKEN" \\',
    '  -H "Content-Type: application/json" \\',
    `  -d '${JSON.stringify(FIRST_ARTICLE)}'`,
  ].join('\n');
  const importLine = `npx folio import articles.ndjson --project ${project.id}`;
  return html`<div class="empty-state" id="no-articles">
    <h3>No articles yet: add the first one</h3>
    <p>Send one with the management API; put the admin token in <code>FOLIO_ADMIN_TOKEN</code> first:</p>
    <pre class="command">${copyable('put-article', curl, 'curl command')}</pre>
    <p>Or import many from a file with one article (JSON) a line, on the server's machine:</p>
    <pre class="command">${copyable('import-line', importLine, 'import command')}</pre>
    <p>An article can hold the blocks of the <a href="/public/v1/fixtures/article">example article</a>, which has every block type and field.</p>
  </div>`;
}
