import type { KeyKind } from './generated/schema.ts';

/**
 * Which secret a client reads with, and the checks that keep each one where it belongs: keys on
 * the server (site rule 5), each key under the option that gives the client its types, and a
 * preview token in one `getArticle` call only.
 */

const CONTENT_KEY_PREFIX = 'folio_ck_';
const PREVIEW_KEY_PREFIX = 'folio_pk_';
const PREVIEW_TOKEN_PREFIX = 'folio_pt_';

/** The key a client was created with. */
export interface ClientKey {
  kind: KeyKind;
  secret: string;
}

const BROWSER_ERROR =
  '@folio/client: createClient() was called in a browser. Content keys and preview keys are ' +
  'server-only (Folio site rule 5: the content key and the signing secret never go into browser ' +
  'code or source files). Fetch articles on your server or at build time and send the browser HTML.';

/**
 * Throws in a browser (contract rule 5): a page, which has a global `window` or `document`, or
 * a browser worker (dedicated, shared or service), which has neither but has `importScripts`.
 * No server runtime defines `importScripts`: Node, Deno, Bun and edge workers load code by
 * `import` only.
 */
export function refuseBrowser(): void {
  // Either global is taken as a browser: a page, a worker shim or a DOM test runner may define
  // only one of them.
  const g = globalThis as { window?: unknown; document?: unknown; importScripts?: unknown };
  if (g.window !== undefined || g.document !== undefined || typeof g.importScripts === 'function') {
    throw new Error(BROWSER_ERROR);
  }
}

const misuse = (message: string) => new TypeError(`@folio/client: ${message}`);

/**
 * The one key of `options`. A key given under the other kind's option is refused rather than
 * sent: a preview key answers drafts with `status` and `publishedAt: null`, which the types of
 * a content client would not describe.
 */
export function clientKey(options: { contentKey?: unknown; previewKey?: unknown }): ClientKey {
  const given = (value: unknown) => value !== undefined && value !== null;
  if (given(options.contentKey) && given(options.previewKey)) {
    throw misuse('createClient() takes a contentKey or a previewKey, not both');
  }
  const kind: KeyKind = given(options.previewKey) ? 'preview' : 'content';
  const name = kind === 'preview' ? 'previewKey' : 'contentKey';
  const secret = kind === 'preview' ? options.previewKey : options.contentKey;
  if (typeof secret !== 'string' || secret.trim() === '') {
    throw misuse(
      `createClient() needs a non-empty ${kind === 'preview' ? name : 'contentKey (or a previewKey)'}`,
    );
  }
  if (secret.startsWith(PREVIEW_TOKEN_PREFIX)) {
    throw misuse(`${name} is a preview token (folio_pt_…): pass it to getArticle(slug, { previewToken })`);
  }
  if (kind === 'content' && secret.startsWith(PREVIEW_KEY_PREFIX)) {
    throw misuse('contentKey is a preview key (folio_pk_…): pass it as previewKey');
  }
  if (kind === 'preview' && secret.startsWith(CONTENT_KEY_PREFIX)) {
    throw misuse('previewKey is a content key (folio_ck_…): pass it as contentKey');
  }
  return { kind, secret };
}

/**
 * The preview token of a `getArticle` call, or undefined when the call gave none. A
 * `previewToken` that is present but empty throws: falling back to the client's key would
 * show a preview key's drafts to whoever opened the preview route without a token. So does a
 * key: sent there, it reads the published article, whose body the preview read refuses with
 * words that would not name the option.
 */
export function previewTokenOf(options: object): string | undefined {
  if (!('previewToken' in options)) return undefined;
  const token = options.previewToken;
  if (typeof token !== 'string' || token.trim() === '') {
    throw misuse('getArticle() was given an empty previewToken; check for the token before reading');
  }
  if (token.startsWith(CONTENT_KEY_PREFIX) || token.startsWith(PREVIEW_KEY_PREFIX)) {
    const [kind, option] = token.startsWith(CONTENT_KEY_PREFIX)
      ? ['a content key (folio_ck_…)', 'contentKey']
      : ['a preview key (folio_pk_…)', 'previewKey'];
    throw misuse(
      `getArticle() was given ${kind} as previewToken, which takes a preview link's token ` +
        `(folio_pt_…); a key is given to createClient() as ${option}`,
    );
  }
  // Anything else goes to Folio, which answers a token it did not issue 401, as it does an
  // expired one: a made-up token from a visitor's address bar is the site's 401, not a crash.
  return token;
}
