// Generated from @folio/schema by packages/client/scripts/generate.ts: do not edit.
// Regenerate with `npm run generate -w @folio/client`.

/**
 * Link rules shared by the ingest schema and the client renderer (seed, site rule 2): only
 * `http:`/`https:` URLs, site paths and `#` anchors. Whitespace, control characters and
 * backslashes are refused everywhere because browsers strip or reinterpret them
 * (`/\evil.example` is treated as `//evil.example`).
 */
const SAFE_CHAR = String.raw`[^\s\\\x00-\x1f\x7f]`;
const HTTP_URL = String.raw`[Hh][Tt][Tt][Pp][Ss]?://[^\s\\/?#\x00-\x1f\x7f]+(?:[/?#]${SAFE_CHAR}*)?`;
const SITE_PATH = String.raw`/(?:[^/\s\\\x00-\x1f\x7f]${SAFE_CHAR}*)?`;
const ANCHOR = `#${SAFE_CHAR}*`;

/** JSON Schema pattern for a link in a text run or a CTA button. */
export const LINK_PATTERN = `^(?:${HTTP_URL}|${SITE_PATH}|${ANCHOR})$`;
/** JSON Schema pattern for an image source: an http(s) URL or a site path. */
export const SOURCE_URL_PATTERN = `^(?:${HTTP_URL}|${SITE_PATH})$`;
/** JSON Schema pattern for an absolute http(s) URL. */
export const HTTP_URL_PATTERN = `^${HTTP_URL}$`;

const linkRegExp = new RegExp(LINK_PATTERN, 'u');
const sourceRegExp = new RegExp(SOURCE_URL_PATTERN, 'u');

/**
 * True when `href` may be rendered as a link: an http(s) URL, a site path or a `#` anchor.
 * @example
 * isSafeLink('https://example.com/a'); // true
 * isSafeLink('javascript:alert(1)'); // false
 */
export function isSafeLink(href: string): boolean {
  return linkRegExp.test(href);
}

/**
 * True when `url` may be used as an image or media source: an http(s) URL or a site path.
 * @example
 * isSafeSource('/images/cover.png'); // true
 * isSafeSource('data:image/png;base64,AAAA'); // false
 */
export function isSafeSource(url: string): boolean {
  return sourceRegExp.test(url);
}
