import {
  type BlockComponents,
  defaultComponents,
  html,
  raw,
  renderBlocks,
  type SafeHtml,
} from '@folio/client';
import type { AdminArticle, Draft, PreviewLink, Project } from '@folio/schema';
import { stableStringify } from '../../services/stable-json.ts';
import type { ServedView } from '../served-view.ts';
import { seoCard, siteUrl } from './article-seo.ts';
import { articlePath, articleState, scheduleLines, stateBadges, summaryOf } from './article-state.ts';
import { articleActions } from './articles.ts';
import {
  confirmButton,
  copyable,
  csrfField,
  describedBy,
  fieldError,
  fieldState,
  formMessage,
  layout,
  type PageContext,
  projectPath,
  timeTag,
  typed,
  zonedTime,
} from './layout.ts';

// The dashboard makes no requests to other origins, so the preview names media instead of
// loading them: an image from the site's CDN or a YouTube player would each be one. A code
// block or a table may scroll sideways, so a keyboard must be able to reach it: each is a
// named region.
function previewComponents(): BlockComponents {
  let codeBlocks = 0;
  let tables = 0;
  return {
    table: (block, ctx) => {
      const table = defaultComponents.table(block, ctx);
      if (String(table) === '') return '';
      tables += 1;
      return html`<div class="table-scroll" tabindex="0" role="region" aria-label="Table ${tables}">${table}</div>`;
    },
    code: (block, { html }) => {
      codeBlocks += 1;
      const language = block.language && CODE_LANGUAGE.test(block.language) ? block.language : '';
      const label = `Code example ${codeBlocks}${language ? ` (${language})` : ''}`;
      return html`<pre${block.id ? html` id="${block.id}"` : ''} tabindex="0" role="region" aria-label="${label}"><code${language ? html` class="language-${language}"` : ''}>${block.code}</code></pre>`;
    },
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
}

// As the client's own renderer writes it: a language class only for a plain name.
const CODE_LANGUAGE = /^[A-Za-z0-9_+-]{1,50}$/;

const STATE_NOTE = {
  published: 'served to content keys',
  changed: 'served, with a draft waiting: content keys get the published version until it is published',
  unpublished: 'not served to content keys',
} as const;

/**
 * One article: its state and schedule, what its draft changes, the schedule form, its SEO as
 * served, and the draft (else the stored version) rendered with `@folio/client`'s renderer, as a
 * site would.
 */
export function articlePage(
  context: PageContext,
  project: Project,
  article: AdminArticle,
  view: ServedView,
): string {
  const shown = article.draft ?? article;
  return layout({
    title: `${article.title}: Article · ${project.name}`,
    context,
    project: { id: project.id, name: project.name, current: 'articles' },
    body: html`<p><a href="${projectPath(project.id)}/articles">← All articles</a></p>
<h1>${article.title} <span class="muted">· Article</span></h1>
${detailsCard(context, project, article, view)}
${article.draft ? draftCard(context, project, article, article.draft) : ''}
${scheduleCard(context, project, article)}
${seoCard(project, article, view)}
<article class="preview card" aria-label="Preview">
  <p class="muted preview-note">${article.draft ? 'The draft' : 'Preview'}, rendered by <code>@folio/client</code> as a site renders it</p>
  <h2 class="preview-title">${shown.title}</h2>
  ${raw(renderBlocks(shown.blocks, { components: previewComponents() }))}
</article>`,
  });
}

function detailsCard(
  context: PageContext,
  project: Project,
  article: AdminArticle,
  view: ServedView,
): SafeHtml {
  const path = articlePath(project, article);
  const summary = summaryOf(article);
  const schedule = scheduleLines(summary);
  const onSite = siteUrl(project, view);
  const viewOnSite = onSite
    ? html`<a class="button small secondary" id="view-on-site" href="${onSite}" target="_blank" rel="noopener noreferrer">View on site<span class="sr-only"> (opens a new tab)</span></a>`
    : '';
  const previewOnSite = project.previewUrl
    ? html`<form method="post" action="${path}/preview-link" target="_blank" rel="noopener">${csrfField(context.csrfToken)}<button type="submit" class="button small primary"${describedBy(context.flash, 'preview')}>Preview on site<span class="sr-only"> (opens a new tab)</span></button></form>`
    : '';
  return html`<section class="card" aria-labelledby="meta-title">
  <h2 id="meta-title" class="sr-only">Article details</h2>
  <dl class="facts">
    <dt>State</dt><dd>${stateBadges(summary)} <span class="muted">${STATE_NOTE[articleState(summary)]}</span></dd>
    ${schedule.length > 0 ? html`<dt>Scheduled</dt><dd class="schedule-lines">${schedule}</dd>` : ''}
    <dt>Slug</dt><dd><code>${article.slug}</code></dd>
    <dt>Canonical path</dt><dd><code>${project.articlesPath}/${encodeURIComponent(article.slug)}</code></dd>
    <dt>Published</dt><dd>${timeTag(article.publishedAt)}</dd>
    <dt>Updated</dt><dd>${timeTag(article.updatedAt)}</dd>
  </dl>
  ${articleActions(context.csrfToken, project, summary, path, html`${viewOnSite}${previewOnSite}`)}
  ${
    article.published && !project.websiteUrl
      ? html`<p class="muted" id="view-needs-url">View on site needs the website URL: <a href="${projectPath(project.id)}/settings#site">set it in Settings</a>.</p>`
      : ''
  }
  ${
    project.previewUrl
      ? ''
      : html`<p class="muted" id="preview-needs-url">Preview on site needs the site's preview URL: <a href="${projectPath(project.id)}/settings#preview">set it in Settings</a>.</p>`
  }
  ${formMessage(context.flash, 'articles')}
  ${formMessage(context.flash, 'preview')}
  ${article.draft ? '' : formMessage(context.flash, 'draft')}
</section>`;
}

/** What the draft changes against the stored version: title, slug, blocks, SEO, related. */
function draftCard(context: PageContext, project: Project, article: AdminArticle, draft: Draft): SafeHtml {
  const path = articlePath(project, article);
  const against = article.published ? 'what is served' : 'the saved version';
  const same = (a: unknown, b: unknown) => stableStringify(a) === stableStringify(b);
  const text = (from: string, to: string, code: boolean) => {
    if (from === to) return html`<span class="muted">unchanged</span>`;
    const show = (value: string) => (code ? html`<code>${value}</code>` : html`“${value}”`);
    return html`<span class="status changed">changed</span> from ${show(from)} to ${show(to)}`;
  };
  const differs = (a: unknown, b: unknown) =>
    same(a, b)
      ? html`<span class="muted">same as ${against}</span>`
      : html`<span class="status changed">differ</span> from ${against}`;
  const count = (blocks: unknown[]) => `${blocks.length} block${blocks.length === 1 ? '' : 's'}`;
  return html`<section class="card" id="draft" aria-labelledby="draft-title">
  <h2 id="draft-title">Draft</h2>
  <p>Saved ${timeTag(draft.updatedAt)}. ${article.published ? 'Publishing it replaces what content keys get.' : 'Publishing the article serves the draft.'}</p>
  <dl class="facts draft-changes">
    <dt>Title</dt><dd id="draft-title-change">${text(article.title, draft.title, false)}</dd>
    <dt>Slug</dt><dd id="draft-slug-change">${text(article.slug, draft.slug, true)}</dd>
    <dt>Blocks</dt><dd id="draft-blocks-change">${differs(article.blocks, draft.blocks)}${same(article.blocks, draft.blocks) ? '' : html` <span class="muted">(${count(article.blocks)} → ${count(draft.blocks)})</span>`}</dd>
    <dt>SEO</dt><dd>${differs(article.seo, draft.seo)}</dd>
    <dt>Related</dt><dd>${differs(article.related, draft.related)}</dd>
  </dl>
  <div class="actions">
    ${confirmButton({
      action: `${path}/draft/discard`,
      csrfToken: context.csrfToken,
      label: 'Discard draft…',
      question: `Discard the draft of "${article.title}"? ${article.published ? 'The published version stays as it is.' : 'The saved version stays as it is.'}`,
      confirmLabel: 'Discard draft',
      small: true,
    })}
  </div>
  ${formMessage(context.flash, 'draft')}
</section>`;
}

/**
 * The schedule form. A `datetime-local` field has no zone: the page's script converts what the
 * viewer typed, in their zone, to UTC in the hidden field beside it. Without the script the
 * hidden field stays empty and the server reads the typed time as UTC, as the form then says.
 */
function scheduleCard({ flash, csrfToken }: PageContext, project: Project, article: AdminArticle): SafeHtml {
  const path = articlePath(project, article);
  const lines = scheduleLines(summaryOf(article));
  const field = (name: 'publishAt' | 'unpublishAt', id: string, label: string, stored: string | null) => {
    const local = typed(flash, 'schedule', `${name}Local`, stored ? stored.slice(0, 16) : '');
    const utc = typed(flash, 'schedule', name, stored ?? '');
    return html`<label for="${id}">${label} <span class="muted">(empty: none)</span></label>
    <input id="${id}" name="${name}Local" type="datetime-local" value="${local}" data-utc="${utc}" data-utc-field="${name}" data-label="${label}"${fieldState(flash, 'schedule', name)}>
    <input type="hidden" name="${name}" value="">
    ${fieldError(flash, 'schedule', name)}`;
  };
  return html`<section class="card" id="schedule" aria-labelledby="schedule-title">
  <h2 id="schedule-title">Schedule</h2>
  <p>${lines.length > 0 ? html`<span class="schedule-lines">${lines}</span>` : 'Nothing is scheduled.'}</p>
  <form method="post" action="${path}/schedule" class="stack">
    ${csrfField(csrfToken)}
    <p class="muted zone-note" data-zone-note>Times are in UTC.</p>
    ${field('publishAt', 'publish-at', article.published && article.draft ? 'Publish the draft at' : 'Publish at', article.publishAt)}
    ${field('unpublishAt', 'unpublish-at', 'Unpublish at', article.unpublishAt)}
    ${formMessage(flash, 'schedule')}
    <p class="muted">A time that has already passed applies at once.</p>
    <button type="submit" class="button primary">Save schedule</button>
  </form>
  ${
    lines.length > 0
      ? html`<form method="post" action="${path}/schedule/cancel" class="cancel-schedule">${csrfField(csrfToken)}<button type="submit" class="button secondary">Cancel schedule</button></form>`
      : ''
  }
</section>`;
}

/**
 * The answer of "Preview on site", in the tab it opened: the page's script goes on to the link at
 * once; without the script the editor follows it.
 */
export function previewLinkPage(
  context: PageContext,
  project: Project,
  article: AdminArticle,
  link: PreviewLink,
): string {
  return layout({
    title: `${article.title}: Preview on site · ${project.name}`,
    context,
    project: { id: project.id, name: project.name, current: 'articles' },
    body: html`<p><a href="${articlePath(project, article)}">← ${article.title}</a></p>
<section class="card" aria-labelledby="preview-link-title">
  <h1 id="preview-link-title">Preview on site</h1>
  <p><a class="button primary" id="preview-link" href="${link.url}" rel="noopener noreferrer" data-open-preview>Open the preview of “${article.title}”</a></p>
  <p>The link shows this article's ${article.draft ? 'draft' : article.published ? 'published version' : 'unpublished version'} on your site until ${zonedTime(link.expiresAt)}. Anyone who has it can read it until then.</p>
  <p>${copyable('preview-url', link.url, 'preview link')}</p>
</section>`,
  });
}
