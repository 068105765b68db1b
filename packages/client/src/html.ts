/**
 * HTML escaping and a tiny `html` tagged template (Hono style): every interpolated value is
 * escaped unless it was produced by `html` itself or marked with `raw`, so markup built with it
 * is safe by construction.
 */

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * Escapes `& < > " '` so the value is safe as element text and inside a quoted attribute.
 * @example
 * escapeHtml('<a title="x">'); // '&lt;a title=&quot;x&quot;&gt;'
 */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}

/**
 * Markup that is already safe: `html` inserts it as is instead of escaping it.
 * @example
 * String(raw('<br>')); // '<br>'
 */
export class SafeHtml {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

/**
 * Marks trusted markup so `html` does not escape it. Never pass article content to it.
 * @example
 * html`<p>${raw('<em>trusted</em>')}</p>`.toString(); // '<p><em>trusted</em></p>'
 */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/** Values `html` accepts: text (escaped), safe markup, arrays of either, and nothing. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

function interpolate(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.value;
  // false/null/undefined render nothing so `${cond && html`...`}` reads naturally.
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(interpolate).join('');
  return escapeHtml(String(value));
}

/**
 * Tagged template that escapes every interpolation unless it is `SafeHtml`. Escaping makes a
 * value safe as element text or inside a QUOTED attribute; it does not vet URLs (pass hrefs
 * through `safeHref`) and is not for `<script>` or `<style>` content.
 * @example
 * html`<p title="${'"x"'}">${'<b>'}</p>`.toString(); // '<p title="&quot;x&quot;">&lt;b&gt;</p>'
 */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += interpolate(values[i]) + strings[i + 1]!;
  return new SafeHtml(out);
}
