import type {
  ArticleOf,
  ChangeOf,
  ClientOptions,
  CommonClientOptions,
  ContentClientOptions,
  FolioClient,
  ListArticlesOptions,
  ListItemOf,
  PreviewClientOptions,
  PreviewTokenOptions,
  RequestOptions,
  SyncOptions,
} from './client-types.ts';
import { clientKey, previewTokenOf, refuseBrowser } from './credentials.ts';
import { errorFromResponse, FolioError } from './folio-error.ts';
import type {
  ChangesPage,
  KeyKind,
  Pagination,
  PreviewChangesPage,
  SitemapEntry,
} from './generated/schema.ts';
import { type Answer, getJson, type RequestSettings } from './request.ts';
import { sleep } from './retry.ts';
import { unexpectedBody } from './unexpected-body.ts';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function required(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new TypeError(`@folio/client: createClient() needs a non-empty ${name}`);
  }
  return value;
}

// `URL.parse` is younger than some runtimes the client supports.
function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

function apiRoot(baseUrl: string, projectId: string): string {
  const url = parseUrl(required('baseUrl', baseUrl));
  if (url?.protocol !== 'https:' && url?.protocol !== 'http:') {
    throw new TypeError(
      `@folio/client: baseUrl must be an absolute http(s) URL, not ${JSON.stringify(baseUrl)}`,
    );
  }
  // fetch refuses such a URL on every request; say so once, here.
  if (url.username !== '' || url.password !== '') {
    throw new TypeError(
      '@folio/client: baseUrl must not hold credentials; the key is sent as a bearer token',
    );
  }
  // The server's address, not the API's: copied from a curl example, every path would be
  // doubled, and getArticle would answer null (a 404) for every slug without a word.
  if (/\/api\/v1(\/|$)/.test(url.pathname)) {
    throw new TypeError(
      `@folio/client: baseUrl is the server's address, without /api/v1 (not ${JSON.stringify(baseUrl)})`,
    );
  }
  const base = url.href.replace(/[?#].*$/, '').replace(/\/+$/, '');
  return `${base}/api/v1/projects/${encodeURIComponent(required('projectId', projectId))}/content`;
}

const invalidResponse = (status: number, message: string) =>
  new FolioError({ status, code: 'invalid_response', message });

/** `?query`, or nothing for an empty one (`URLSearchParams#size` is missing on older runtimes). */
function search(query: URLSearchParams): string {
  const text = query.toString();
  return text ? `?${text}` : '';
}

/** The `data` of a success body, checked with `valid`, or an `invalid_response` FolioError. */
function successData<T>(answer: Answer, valid: (data: unknown) => boolean): T {
  const { body } = answer;
  if (isObject(body) && body.success === true && valid(body.data)) return body.data as T;
  throw unexpectedBody(answer);
}

const isPagination = (value: unknown): value is Pagination =>
  isObject(value) && typeof value.page === 'number' && typeof value.hasNext === 'boolean';

/**
 * Creates a client of one project's delivery API (`/api/v1`, `Authorization: Bearer`), with a
 * content key (what is published) or a preview key (every article, drafts shown, with
 * `status`). Error answers throw a `FolioError`; 429, 5xx, network errors and timeouts are
 * retried with backoff, honouring `Retry-After`. Throws at once in a browser (a page or a
 * worker): both kinds of key are server-only.
 * @example
 * const folio = createClient({ baseUrl: process.env.FOLIO_URL, projectId, contentKey });
 * const article = await folio.getArticle('hello-world'); // null when not found
 * for await (const item of folio.articles()) console.log(item.slug);
 * const { changes, cursor, reset } = await folio.sync({ cursor: lastCursor });
 * const drafts = createClient({ baseUrl: process.env.FOLIO_URL, projectId, previewKey });
 * const { data } = await drafts.listArticles(); // data[0].status: 'published' | 'changed' | 'unpublished'
 */
export function createClient(options: ContentClientOptions): FolioClient<'content'>;
export function createClient(options: PreviewClientOptions): FolioClient<'preview'>;
export function createClient(options: ClientOptions): FolioClient<KeyKind>;
export function createClient(options: ClientOptions): FolioClient<KeyKind> {
  refuseBrowser();
  const key = clientKey(options);
  const root = apiRoot(options.baseUrl, options.projectId);
  const settings = requestSettings(options, key.secret);
  // Drafts must never be kept by a cache in front of fetch (a framework's data cache): Folio
  // answers them `private, no-store`, and the request asks for it too.
  if (key.kind === 'preview') settings.cache = 'no-store';

  async function listArticles({ page, limit, signal }: ListArticlesOptions = {}) {
    const query = new URLSearchParams();
    if (page !== undefined) query.set('page', String(page));
    if (limit !== undefined) query.set('limit', String(limit));
    const answer = await getJson(`${root}${search(query)}`, settings, signal);
    const { status, body } = answer;
    if (status < 200 || status > 299) throw errorFromResponse(answer);
    const data = successData<ListItemOf<KeyKind>[]>(answer, Array.isArray);
    const pagination = (body as { pagination?: unknown }).pagination;
    if (!isPagination(pagination)) throw unexpectedBody(answer);
    return { data, pagination };
  }

  // The API's largest page by default: fewer round trips when reading everything.
  async function* articles({ limit = 100, signal }: Omit<ListArticlesOptions, 'page'> = {}) {
    for (let page = 1; ; page++) {
      const result = await listArticles({ page, limit, signal });
      // Something between (a cache keyed without the query string) that answers page 1 to
      // every page would have this read forever.
      if (result.pagination.page !== page) {
        throw invalidResponse(
          200,
          `Asked for page ${page}, got page ${result.pagination.page}: does a cache in front of Folio ignore the query string?`,
        );
      }
      yield* result.data;
      // An empty page that claims more would loop forever; stop rather than trust it.
      if (!result.pagination.hasNext || result.data.length === 0) return;
    }
  }

  async function getArticle(slug: string, options: RequestOptions | PreviewTokenOptions = {}) {
    const token = previewTokenOf(options);
    const path = slugPath(slug);
    if (path === undefined) {
      if (token === undefined) return null;
      throw new TypeError(
        `@folio/client: getArticle() with a previewToken needs its article's slug, not ${JSON.stringify(slug)}`,
      );
    }
    // A token replaces the key for this one read; it is never stored on the client.
    const read = token === undefined ? settings : tokenSettings(settings, token);
    const answer = await getJson(`${root}/by-slug/${path}`, read, options.signal);
    const { status } = answer;
    // Contract: "getArticle(slug) (null on 404)", whatever the body (Folio's not_found, or a
    // proxy's plain-text page). Folio answers a token 401 for any slug but its article's, so a
    // 404 there is not Folio's, and the token read is typed never null.
    if (status === 404 && token === undefined) return null;
    if (status < 200 || status > 299) throw errorFromResponse(answer);
    // A preview read answers with `status`; without it the types would promise a field that is
    // not there (a content key passed as a token reads the published article).
    const preview = token !== undefined || key.kind === 'preview';
    return successData<ArticleOf<KeyKind>>(answer, preview ? isPreviewArticle : isObject);
  }

  async function getSitemap({ signal }: RequestOptions = {}): Promise<SitemapEntry[]> {
    const answer = await getJson(`${root}/sitemap`, settings, signal);
    const { status } = answer;
    if (status < 200 || status > 299) throw errorFromResponse(answer);
    return successData<SitemapEntry[]>(answer, Array.isArray);
  }

  async function changesPage(since: string | undefined, limit: number | undefined, signal?: AbortSignal) {
    const query = new URLSearchParams();
    if (since !== undefined) query.set('since', since);
    if (limit !== undefined) query.set('limit', String(limit));
    const answer = await getJson(`${root}/changes${search(query)}`, settings, signal);
    const { status } = answer;
    if (status < 200 || status > 299) throw errorFromResponse(answer);
    return successData<ChangesPage | PreviewChangesPage>(answer, isChangesPage);
  }

  async function sync({ cursor, limit, signal }: SyncOptions = {}) {
    const changes: ChangeOf<KeyKind>[] = [];
    // Folio never issues an empty cursor: one read from a truncated or unwritten cursor file
    // belongs to a replica whose position is lost. Reading everything without saying so would
    // leave it holding the articles deleted since; `reset` tells the caller to start afresh.
    const lost = typeof cursor === 'string' && cursor.trim() === '';
    let since = lost ? undefined : cursor;
    let reset = lost;
    let restarted = false;
    for (;;) {
      let page: ChangesPage | PreviewChangesPage;
      try {
        page = await changesPage(since, limit, signal);
      } catch (error) {
        // The history behind the cursor is gone: start over from the whole published set.
        if (!(error instanceof FolioError && error.status === 410) || since === undefined || restarted)
          throw error;
        changes.length = 0;
        since = undefined;
        restarted = true;
        // Without a cursor there is no replica to clear (a full sync's own cursor expired).
        reset ||= cursor !== undefined;
        continue;
      }
      // A cursor that does not move (a cache keyed without the query string) would repeat
      // the same page forever.
      if (page.hasMore && since !== undefined && page.cursor === since) {
        throw invalidResponse(
          200,
          `The changes feed did not move past cursor ${since}: does a cache in front of Folio ignore the query string?`,
        );
      }
      changes.push(...page.changes);
      since = page.cursor;
      // A page may be empty and still claim more: Folio leaves out an upsert whose article was
      // unpublished or deleted while the page was read (its delete comes on a later page).
      // Its cursor moved (checked above), so following it makes progress.
      if (!page.hasMore) return { changes, cursor: page.cursor, reset };
    }
  }

  return {
    listArticles,
    articles,
    // One function behind both overloads: which one applies is decided by the options at run time.
    getArticle: getArticle as FolioClient<KeyKind>['getArticle'],
    getSitemap,
    sync,
  };
}

// The longest a timer waits: a longer delay fires at once (Node warns, browsers are silent).
const MAX_TIMER_MS = 2 ** 31 - 1;

const NUMBER_RULES = {
  count: [(n: number) => Number.isSafeInteger(n) && n >= 0, 'a whole number, 0 or more'],
  delay: [(n: number) => n >= 0 && n <= MAX_TIMER_MS, `a number of milliseconds from 0 to ${MAX_TIMER_MS}`],
  timeout: [
    (n: number) => n > 0 && n <= MAX_TIMER_MS,
    `a number of milliseconds above 0, up to ${MAX_TIMER_MS}`,
  ],
} as const;

/**
 * A numeric option, its default when not given. A wrong one throws here rather than on the
 * first request, where it would be a `RangeError` from a timer, or `retries: Infinity` a loop
 * that never gives up.
 */
function numberOption(
  name: string,
  value: unknown,
  fallback: number,
  rule: keyof typeof NUMBER_RULES,
): number {
  if (value === undefined) return fallback;
  const [valid, wanted] = NUMBER_RULES[rule];
  if (typeof value !== 'number' || !valid(value)) {
    throw new TypeError(`@folio/client: ${name} must be ${wanted}, not ${String(value)}`);
  }
  return value;
}

function requestSettings(options: CommonClientOptions, secret: string): RequestSettings {
  if (options.fetch !== undefined && typeof options.fetch !== 'function') {
    throw new TypeError('@folio/client: fetch must be a function');
  }
  return {
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    headers: { authorization: `Bearer ${secret}`, accept: 'application/json' },
    timeoutMs: numberOption('timeoutMs', options.timeoutMs, 10_000, 'timeout'),
    policy: {
      retries: numberOption('retries', options.retries, 2, 'count'),
      baseDelayMs: numberOption('retryDelayMs', options.retryDelayMs, 250, 'delay'),
      maxDelayMs: numberOption('maxRetryDelayMs', options.maxRetryDelayMs, 10_000, 'delay'),
    },
    sleep: options.sleep ?? sleep,
    now: options.now ?? Date.now,
    random: options.random ?? Math.random,
  };
}

/** The client's settings with `token` as the bearer, and no cache that could keep a draft. */
function tokenSettings(settings: RequestSettings, token: string): RequestSettings {
  return {
    ...settings,
    headers: { ...settings.headers, authorization: `Bearer ${token}` },
    cache: 'no-store',
  };
}

/**
 * The slug as a path segment; undefined for a value no article can have as its slug: not a
 * string, empty, or holding a lone surrogate, which has no UTF-8 form to send.
 */
function slugPath(slug: unknown): string | undefined {
  if (typeof slug !== 'string' || slug === '') return undefined;
  try {
    return encodeURIComponent(slug);
  } catch {
    return undefined;
  }
}

const isPreviewArticle = (value: unknown): boolean => isObject(value) && typeof value.status === 'string';

const isChangesPage = (value: unknown): value is ChangesPage =>
  isObject(value) &&
  Array.isArray(value.changes) &&
  typeof value.cursor === 'string' &&
  typeof value.hasMore === 'boolean';
