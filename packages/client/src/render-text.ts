import { isSafeLink } from './generated/links.ts';
import type { TextRun } from './generated/schema.ts';
import { html, SafeHtml } from './html.ts';

// Characters that end or open an attribute or a tag. A URL means the same with them
// percent-encoded (a browser encodes all but the quote itself before requesting it).
const ATTRIBUTE_BREAKERS = /["'<>`]/g;
const percentEncode = (char: string) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`;

/**
 * The `href` when seed rule 2 allows it as a link (http/https URL, site path, `#` anchor),
 * else `undefined`. Use it in custom components before writing an `<a href>`. Quotes, `<`, `>`
 * and backticks come back percent-encoded, so the value cannot end a quoted attribute even
 * where a component forgets to escape it.
 * @example
 * safeHref('/blog/hello'); // '/blog/hello'
 * safeHref('javascript:alert(1)'); // undefined
 * safeHref('https://x.example/"onmouseover="alert(1)'); // 'https://x.example/%22onmouseover=%22alert(1)'
 */
export function safeHref(href: unknown): string | undefined {
  if (typeof href !== 'string' || !isSafeLink(href)) return undefined;
  return href.replace(ATTRIBUTE_BREAKERS, percentEncode);
}

/** What a link component receives: a checked `href`, the run's `rel`, and the rendered text. */
export interface LinkProps {
  /**
   * Already passed seed rule 2, with quotes, `<`, `>` and backticks percent-encoded; escape it
   * like any attribute all the same (`html` does).
   */
  href: string;
  /** The article's text as written, NOT escaped: build with `html`, which escapes it. */
  rel?: string;
  /** The run's text with its marks, already escaped. */
  children: SafeHtml;
}

/**
 * Renders a link; called only for hrefs that passed seed rule 2. A returned string is inserted
 * as is (trusted): build it with `html`, since a template literal would insert `rel` raw.
 */
export type LinkComponent = (props: LinkProps) => string | SafeHtml;

/**
 * The built-in link: `<a href rel>`; the run's rel is kept (seed rule 2), escaped.
 * @example
 * defaultLink({ href: '/docs', rel: 'help', children: html`Docs` }).toString(); // '<a href="/docs" rel="help">Docs</a>'
 */
export function defaultLink({ href, rel, children }: LinkProps): SafeHtml {
  return html`<a href="${href}"${rel ? html` rel="${rel}"` : ''}>${children}</a>`;
}

/**
 * Renders one text run: marks nest as `<a><strong><em><code>`, text is escaped, and a link is
 * kept only when its `href` passes seed rule 2; otherwise only the text is shown.
 * @example
 * renderTextRun({ text: 'Docs', bold: true, href: '/docs' }).toString();
 * // '<a href="/docs"><strong>Docs</strong></a>'
 */
export function renderTextRun(run: TextRun, link: LinkComponent = defaultLink): SafeHtml {
  if (run.text === '') return new SafeHtml('');
  let out: SafeHtml = html`${run.text}`;
  if (run.code === true) out = html`<code>${out}</code>`;
  if (run.italic === true) out = html`<em>${out}</em>`;
  if (run.bold === true) out = html`<strong>${out}</strong>`;
  const href = safeHref(run.href);
  if (href === undefined) return out;
  const linked = link(run.rel ? { href, rel: run.rel, children: out } : { href, children: out });
  return linked instanceof SafeHtml ? linked : new SafeHtml(linked);
}

/**
 * Renders an array of text runs to safe inline HTML, with an optional link component.
 * @example
 * renderText([{ text: 'a < b' }, { text: ' fast', italic: true }]).toString();
 * // 'a &lt; b<em> fast</em>'
 */
export function renderText(runs: readonly TextRun[], link?: LinkComponent): SafeHtml {
  return new SafeHtml(runs.map((run) => renderTextRun(run, link).value).join(''));
}
