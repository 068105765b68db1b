import type { TextRun } from '@folio/schema';
import { isSafeLink } from '@folio/schema';
import { type HtmlValue, html, SafeHtml } from './html.ts';

/**
 * The `href` when seed rule 2 allows it as a link (http/https URL, site path, `#` anchor),
 * else `undefined`. Use it in custom components before writing an `<a href>`.
 * @example
 * safeHref('/blog/hello'); // '/blog/hello'
 * safeHref('javascript:alert(1)'); // undefined
 */
export function safeHref(href: unknown): string | undefined {
  return typeof href === 'string' && isSafeLink(href) ? href : undefined;
}

/**
 * Renders one text run: marks nest as `<a><strong><em><code>`, text is escaped, and a link is
 * kept only when its `href` passes seed rule 2; otherwise only the text is shown.
 * @example
 * renderTextRun({ text: 'Docs', bold: true, href: '/docs' }).toString();
 * // '<a href="/docs"><strong>Docs</strong></a>'
 */
export function renderTextRun(run: TextRun): SafeHtml {
  if (run.text === '') return new SafeHtml('');
  let out: HtmlValue = run.text;
  if (run.code === true) out = html`<code>${out}</code>`;
  if (run.italic === true) out = html`<em>${out}</em>`;
  if (run.bold === true) out = html`<strong>${out}</strong>`;
  const href = safeHref(run.href);
  if (href !== undefined) {
    // Seed rule 2: each run's rel is kept (escaped like every attribute).
    const rel = run.rel ? html` rel="${run.rel}"` : '';
    out = html`<a href="${href}"${rel}>${out}</a>`;
  }
  return out instanceof SafeHtml ? out : html`${out}`;
}

/**
 * Renders an array of text runs to safe inline HTML.
 * @example
 * renderText([{ text: 'a < b' }, { text: ' fast', italic: true }]).toString();
 * // 'a &lt; b<em> fast</em>'
 */
export function renderText(runs: readonly TextRun[]): SafeHtml {
  return new SafeHtml(runs.map((run) => renderTextRun(run).value).join(''));
}
