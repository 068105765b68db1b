import { html, type SafeHtml } from '@folio/client';
import type { AdminArticle, Article, PreviewArticle, Project } from '@folio/schema';
import type { ServedView } from '../served-view.ts';
import { articlePath } from './article-state.ts';

/** The article's address on the site: the website URL and its served canonical path. */
export function siteUrl(project: Project, view: ServedView): string | undefined {
  if (!project.websiteUrl || !view.served) return undefined;
  return `${project.websiteUrl}${view.served.seo.canonicalPath}`;
}

/**
 * What a site puts in the page's head and beside the article: SEO, Open Graph, JSON-LD and the
 * related links, as the delivery API serves them (for a draft: as publishing would serve them).
 */
export function seoCard(project: Project, article: AdminArticle, view: ServedView): SafeHtml {
  const shown = view.upcoming ?? view.served;
  return html`<section class="card" id="seo" aria-labelledby="seo-title">
  <h2 id="seo-title">SEO and sharing</h2>
  ${shown ? seoFacts(project, shown, note(article, view)) : html`<p>Not available: the article changed while the page was built. Reload the page.</p>`}
</section>`;
}

function note(article: AdminArticle, view: ServedView): string {
  if (!view.upcoming) return 'As the delivery API serves it to content keys.';
  if (article.published) {
    return "The draft's, as publishing it will serve them; content keys get the published version's until then.";
  }
  return 'As publishing the article will serve them; content keys get nothing until then.';
}

function seoFacts(project: Project, shown: Article | PreviewArticle, says: string): SafeHtml {
  const { seo } = shown;
  const canonical = project.websiteUrl
    ? html`<code>${project.websiteUrl}${seo.canonicalPath}</code>`
    : html`<code>${seo.canonicalPath}</code> <span class="muted">(the path: with a website URL in Settings, the full address)</span>`;
  const none = (why: string) => html`<span class="muted">${why}</span>`;
  const image =
    seo.ogImage === null
      ? none('none: no image given and no image block')
      : /^https?:\/\//i.test(seo.ogImage)
        ? html`<a href="${seo.ogImage}" rel="noopener noreferrer"><code>${seo.ogImage}</code></a> <span class="muted">(not loaded here)</span>`
        : html`<code>${seo.ogImage}</code>`;
  return html`<p class="muted">${says}</p>
  <h3>Search</h3>
  <dl class="facts seo-facts">
    <dt>Title</dt><dd id="seo-title-value">${seo.title}</dd>
    <dt>Description</dt><dd id="seo-description">${seo.description || none('none: the article has no paragraph')}</dd>
    <dt>Canonical URL</dt><dd id="seo-canonical">${canonical}</dd>
  </dl>
  <h3>Open Graph</h3>
  <dl class="facts seo-facts">
    <dt>Title</dt><dd id="og-title">${seo.ogTitle}</dd>
    <dt>Description</dt><dd id="og-description">${seo.ogDescription || none('none')}</dd>
    <dt>Image</dt><dd id="og-image">${image}</dd>
    <dt>Type</dt><dd><code>${seo.ogType}</code></dd>
  </dl>
  <h3>JSON-LD</h3>
  <pre class="code-block" id="json-ld" tabindex="0" role="region" aria-label="JSON-LD"><code>${JSON.stringify(seo.jsonLd, null, 2)}</code></pre>
  <h3>Related links</h3>
  ${relatedLinks(project, shown)}`;
}

function relatedLinks(project: Project, shown: Article | PreviewArticle): SafeHtml {
  if (shown.related.length === 0) {
    return html`<p class="muted">None: the related articles it names are not published, or no other article is.</p>`;
  }
  const items = shown.related.map(
    (link) =>
      html`<li><a href="${articlePath(project, link)}">${link.title}</a> <code class="muted">${link.canonicalPath}</code></li>`,
  );
  return html`<ol class="related-links" id="related-links">${items}</ol>
  ${'status' in shown ? html`<p class="muted">Here related links include unpublished articles; content keys get only the published ones.</p>` : ''}`;
}
