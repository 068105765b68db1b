import { html, type SafeHtml } from '@folio/client';
import type { Project } from '@folio/schema';
import {
  csrfField,
  fieldError,
  fieldState,
  formMessage,
  layout,
  type PageContext,
  projectPath,
  typed,
} from './layout.ts';

/** The Site and URLs form's labels, which its refusals use in place of the API's field names. */
export const SITE_LABELS = { websiteUrl: 'Website URL', articlesPath: 'The "Articles live under" path' };
/** The Preview on site form's label. */
export const PREVIEW_URL_LABELS = { previewUrl: 'Preview URL' };

export interface SettingsPageData {
  project: Project;
  baseUrl: string;
  /** A slug to build the example URLs on: a real article's when there is one. */
  exampleSlug: string;
}

/**
 * The Settings page: Site and URLs (the website URL and the articles path), and Preview on site
 * (the preview URL that preview links fill in).
 */
export function settingsPage(context: PageContext, data: SettingsPageData): string {
  const { project } = data;
  return layout({
    title: `${project.name}: Settings`,
    context,
    project: { id: project.id, name: project.name, current: 'settings' },
    body: html`<h1>Settings <span class="muted">· ${project.name}</span></h1>
<div class="cards">
${siteCard(context, data)}
${previewCard(context, data)}
</div>`,
  });
}

function siteCard(
  { flash, csrfToken }: PageContext,
  { project, baseUrl, exampleSlug }: SettingsPageData,
): SafeHtml {
  const base = projectPath(project.id);
  const path = `${project.articlesPath}/${encodeURIComponent(exampleSlug)}`;
  const sitemapEndpoint = `${baseUrl}/api/v1/projects/${encodeURIComponent(project.id)}/content/sitemap`;
  // novalidate: the server's refusal, shown next to the form with what was typed, is the one
  // explanation for every bad website URL (the browser's own check would stop only some).
  return html`<section class="card" id="site" aria-labelledby="site-title">
  <h2 id="site-title">Site and URLs</h2>
  <form method="post" action="${base}/settings" class="stack" novalidate>
    ${csrfField(csrfToken)}
    <label for="website-url">Website URL <span class="muted">(the origin sitemap entries use, e.g. https://www.example.com)</span></label>
    <input id="website-url" name="websiteUrl" type="url" placeholder="https://www.example.com"
      value="${typed(flash, 'site', 'websiteUrl', project.websiteUrl ?? '')}"${fieldState(flash, 'site', 'websiteUrl')}>
    ${fieldError(flash, 'site', 'websiteUrl')}
    <label for="articles-path">Articles live under <span class="muted">(a path such as /blog; empty: the site root)</span></label>
    <input id="articles-path" name="articlesPath" value="${typed(flash, 'site', 'articlesPath', project.articlesPath)}"${fieldState(flash, 'site', 'articlesPath')}>
    ${fieldError(flash, 'site', 'articlesPath')}
    ${formMessage(flash, 'site')}
    <button type="submit" class="button primary">Save settings</button>
  </form>
  <h3>Example for the article <code>${exampleSlug}</code></h3>
  <dl class="facts">
    <dt>Canonical path</dt><dd><code id="example-canonical-path">${path}</code></dd>
    <dt>Canonical URL</dt><dd>${project.websiteUrl ? html`<code id="example-canonical-url">${project.websiteUrl}${path}</code>` : html`<span class="muted">your site's origin + <code>${path}</code></span>`}</dd>
    <dt>Sitemap entry URL</dt><dd>${project.websiteUrl ? html`<code id="example-sitemap-url">${project.websiteUrl}${path}</code>` : html`<span class="muted">set a Website URL: the sitemap needs one</span>`}</dd>
    <dt>Sitemap endpoint</dt><dd><code>${sitemapEndpoint}</code></dd>
  </dl>
</section>`;
}

function previewCard(
  { flash, csrfToken }: PageContext,
  { project, exampleSlug }: SettingsPageData,
): SafeHtml {
  const base = projectPath(project.id);
  const example = project.previewUrl
    ?.replaceAll('{token}', 'folio_pt_…')
    .replaceAll('{slug}', encodeURIComponent(exampleSlug));
  // novalidate: the browser's URL check knows nothing of {token}; the server's refusal says why.
  return html`<section class="card" id="preview" aria-labelledby="preview-title">
  <h2 id="preview-title">Preview on site</h2>
  <p>An article's "Preview on site" button opens this address of your site with a one-hour preview token, so the site can show the draft before it is published. The site reads the draft with the token (<code>getArticle(slug, { previewToken })</code>).</p>
  <form method="post" action="${base}/settings/preview" class="stack" novalidate>
    ${csrfField(csrfToken)}
    <label for="preview-url">Preview URL <span class="muted">(must contain {token}; {slug} is optional; empty removes it)</span></label>
    <input id="preview-url" name="previewUrl" type="url" placeholder="https://www.example.com/api/preview?slug={slug}&amp;token={token}"
      value="${typed(flash, 'preview-url', 'previewUrl', project.previewUrl ?? '')}"${fieldState(flash, 'preview-url', 'previewUrl')}>
    ${fieldError(flash, 'preview-url', 'previewUrl')}
    ${formMessage(flash, 'preview-url')}
    <button type="submit" class="button primary">Save preview URL</button>
  </form>
  <h3>Example for the article <code>${exampleSlug}</code></h3>
  <dl class="facts">
    <dt>Preview link</dt><dd>${example ? html`<code id="example-preview-url">${example}</code>` : html`<span class="muted">none: without a preview URL, "Preview on site" is off</span>`}</dd>
  </dl>
  <p class="muted">A site that renders drafts on its server can use a preview key instead; create one under <a href="${base}#keys">Content API keys</a>.</p>
</section>`;
}
