import { isSafeSource } from './generated/links.ts';
import type { Block, BlockType } from './generated/schema.ts';
import { html, raw, type SafeHtml } from './html.ts';
import type { RenderContext } from './render-context.ts';

/** The block of one `type`. */
export type BlockOf<K extends BlockType> = Extract<Block, { type: K }>;
/**
 * Renders one block of type `K` to HTML. A returned string is inserted as is (trusted), and the
 * block's fields are the article's text as written: build the HTML with `html`, which escapes
 * them, never with a plain template literal.
 */
export type BlockComponent<K extends BlockType> = (
  block: BlockOf<K>,
  ctx: RenderContext,
) => string | SafeHtml;
/** One component per block type; each returns `SafeHtml`, so an override can wrap it with `html`. */
export type DefaultComponents = { [K in BlockType]: (block: BlockOf<K>, ctx: RenderContext) => SafeHtml };

const NOTHING = raw('');

/** The block's `id` as an attribute, so `#anchor` links in text runs land on it. */
function idOf(block: { id?: string }): SafeHtml | '' {
  return block.id ? html` id="${block.id}"` : '';
}

const CODE_LANGUAGE = /^[A-Za-z0-9_+-]{1,50}$/;
const YOUTUBE_ID = /^[A-Za-z0-9_-]{11}$/;
const YOUTUBE_ALLOW =
  'accelerometer; autoplay; clipboard-write; encrypted-media; gyroscope; picture-in-picture; web-share';

/**
 * The built-in markup of every block type: semantic HTML, every value escaped, links and
 * sources checked. An empty block (no runs, no items) renders nothing rather than an empty tag.
 * @example
 * defaultComponents.heading({ type: 'heading', level: 2, text: 'Hi' }, ctx).toString(); // '<h2>Hi</h2>'
 */
export const defaultComponents: DefaultComponents = {
  heading: (block) => html`<h${block.level}${idOf(block)}>${block.text}</h${block.level}>`,
  paragraph: (block, ctx) =>
    block.content.length ? html`<p${idOf(block)}>${ctx.renderText(block.content)}</p>` : NOTHING,
  list: (block, ctx) => {
    const { ordered, items } = block;
    if (!items.length) return NOTHING;
    const tag = raw(ordered ? 'ol' : 'ul');
    return html`<${tag}${idOf(block)}>${items.map((item) => html`<li>${ctx.renderText(item)}</li>`)}</${tag}>`;
  },
  quote: (block, ctx) => {
    const { content, attribution } = block;
    if (!content.length) return NOTHING;
    const quote = html`<blockquote${attribution ? '' : idOf(block)}><p>${ctx.renderText(content)}</p></blockquote>`;
    // WHATWG: attribution belongs outside the blockquote, so quote and source share a figure.
    if (!attribution) return quote;
    return html`<figure class="quote"${idOf(block)}>${quote}<figcaption><cite>${attribution}</cite></figcaption></figure>`;
  },
  code: (block) => {
    const { code, language } = block;
    const cls = language && CODE_LANGUAGE.test(language) ? html` class="language-${language}"` : '';
    return html`<pre${idOf(block)}><code${cls}>${code}</code></pre>`;
  },
  image: (block, ctx) => {
    const { url, alt, caption, width, height } = block;
    if (!isSafeSource(url)) return NOTHING;
    // With both sides known the browser reserves the image's box before it loads.
    const size = html`${width ? html` width="${width}"` : ''}${height ? html` height="${height}"` : ''}`;
    // The first image is usually in view when the page opens (often its largest paint): loading
    // it lazily would delay it until layout; later ones wait until the reader scrolls near.
    const loading = ctx.priority ? raw(' fetchpriority="high"') : raw(' loading="lazy"');
    const figcaption = caption ? html`<figcaption>${caption}</figcaption>` : '';
    return html`<figure${idOf(block)}><img src="${url}" alt="${alt}"${size}${loading}>${figcaption}</figure>`;
  },
  callout: (block, ctx) =>
    block.content.length
      ? html`<aside class="callout callout-${block.variant}" role="note"${idOf(block)}><p>${ctx.renderText(block.content)}</p></aside>`
      : NOTHING,
  cta: (block, ctx) => {
    const { heading, body, buttonLabel, buttonHref } = block;
    const href = ctx.safeHref(buttonHref);
    // Seed rule 2: a refused link keeps its text but loses the link.
    const button = href
      ? html`<a class="button" href="${href}">${buttonLabel}</a>`
      : html`<p class="button-label">${buttonLabel}</p>`;
    const paragraph = body ? html`<p>${body}</p>` : '';
    return html`<section class="cta"${idOf(block)}><h2>${heading}</h2>${paragraph}${button}</section>`;
  },
  faq: (block, ctx) => {
    const { items } = block;
    if (!items.length) return NOTHING;
    const details = items.map(
      ({ question, answer }) =>
        html`<details><summary>${question}</summary><p>${ctx.renderText(answer)}</p></details>`,
    );
    return html`<div class="faq"${idOf(block)}>${details}</div>`;
  },
  table: (block) => {
    const { headers, rows } = block;
    if (!headers.length && !rows.length) return NOTHING;
    const head = headers.length
      ? html`<thead><tr>${headers.map((cell) => html`<th scope="col">${cell}</th>`)}</tr></thead>`
      : '';
    const body = rows.length
      ? html`<tbody>${rows.map((row) => html`<tr>${row.map((cell) => html`<td>${cell}</td>`)}</tr>`)}</tbody>`
      : '';
    return html`<table${idOf(block)}>${head}${body}</table>`;
  },
  video: (block) => {
    const { videoId, title } = block;
    // Re-checked here: the id is spliced into a URL path.
    if (!YOUTUBE_ID.test(videoId)) return NOTHING;
    const src = `https://www.youtube-nocookie.com/embed/${videoId}`;
    return html`<figure class="video"${idOf(block)}><iframe src="${src}" title="${title || 'YouTube video'}" width="560" height="315" loading="lazy" allow="${YOUTUBE_ALLOW}" referrerpolicy="strict-origin-when-cross-origin" allowfullscreen></iframe></figure>`;
  },
};
