import { errorFromResponse, FolioError } from './folio-error.ts';
import type {
  Article,
  ArticleListItem,
  Change,
  ChangesPage,
  Pagination,
  SitemapEntry,
} from './generated/schema.ts';
import { getJson, type RequestSettings } from './request.ts';
import { sleep } from './retry.ts';

/** Options of `createClient`. */
export interface ClientOptions {
  /** Folio's base address, e.g. `https://folio.example.com`. */
  baseUrl: string;
  /** The project id from the dashboard's Connection card. */
  projectId: string;
  /** A content key; server-only (seed rule 5). */
  contentKey: string;
  /** The fetch to use; defaults to the global one. */
  fetch?: typeof globalThis.fetch;
  /** Timeout of one attempt, including reading the body. Default 10,000 ms. */
  timeoutMs?: number;
  /** Retries after a 429, a 5xx, a network error or a timeout. Default 2. */
  retries?: number;
  /** First backoff delay, doubled on each retry. Default 250 ms. */
  retryDelayMs?: number;
  /** Cap of any wait between attempts, `Retry-After` included. Default 10,000 ms. */
  maxRetryDelayMs?: number;
  /** For tests: how to wait between attempts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** For tests: the clock used to read a `Retry-After` date. */
  now?: () => number;
  /** For tests: the jitter source, a number in [0, 1). */
  random?: () => number;
}

/** Per-call options. */
export interface RequestOptions {
  /** Aborts the call, including waits between retries. */
  signal?: AbortSignal;
}

/** Options of `listArticles`. */
export interface ListArticlesOptions extends RequestOptions {
  /** 1-based page. Default 1. */
  page?: number;
  /** Items per page, at most 100. Default 20. */
  limit?: number;
}

/** One page of published articles, newest first. */
export interface ArticlePage {
  data: ArticleListItem[];
  pagination: Pagination;
}

/** Options of `sync`. */
export interface SyncOptions extends RequestOptions {
  /** The cursor the last sync returned; omit for a first sync of everything published. */
  cursor?: string | undefined;
  /** Changes per request, at most 100. Default 100. */
  limit?: number;
}

/** What a sync brings: apply `changes` in order (upsert by `id`, delete by `id`), keep `cursor`. */
export interface SyncResult {
  changes: Change[];
  /** Pass it to the next `sync`. */
  cursor: string;
  /**
   * True when the cursor was older than the server's retained history (410 `cursor_expired`)
   * and the sync started over: `changes` is then the whole published set, so clear the replica
   * before applying them.
   */
  reset: boolean;
}

/** A client of one project's delivery API. */
export interface FolioClient {
  /** One page of published articles. */
  listArticles(options?: ListArticlesOptions): Promise<ArticlePage>;
  /** Every published article, fetching pages (default limit 100) while `pagination.hasNext`. */
  articles(options?: Omit<ListArticlesOptions, 'page'>): AsyncGenerator<ArticleListItem, void, undefined>;
  /** One published article with its related links, or null on any 404 answer. */
  getArticle(slug: string, options?: RequestOptions): Promise<Article | null>;
  /** One entry per published article: its URL and last modification. */
  getSitemap(options?: RequestOptions): Promise<SitemapEntry[]>;
  /**
   * What changed since `cursor` (everything published without one), following `hasMore` to the
   * end. A cursor older than the server's retention (410) starts over without it: `reset` is
   * then true and `changes` is the whole published set.
   * @example
   * const { changes, cursor, reset } = await folio.sync({ cursor: saved });
   * if (reset) replica.clear();
   * for (const change of changes) {
   *   if (change.type === 'upsert') replica.set(change.article.id, change.article);
   *   else replica.delete(change.id);
   * }
   * saved = cursor;
   */
  sync(options?: SyncOptions): Promise<SyncResult>;
}

const BROWSER_ERROR =
  '@folio/client: createClient() was called in a browser with a content key. Content keys are ' +
  'server-only (Folio site rule 5: the content key and the signing secret never go into browser ' +
  'code or source files). Fetch articles on your server or at build time and send the browser HTML.';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function required(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new TypeError(`@folio/client: createClient() needs a non-empty ${name}`);
  }
  return value;
}

function apiRoot(baseUrl: string, projectId: string): string {
  const url = new URL(required('baseUrl', baseUrl));
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TypeError('@folio/client: baseUrl must be an http(s) URL');
  }
  const base = url.href.replace(/[?#].*$/, '').replace(/\/+$/, '');
  return `${base}/api/v1/projects/${encodeURIComponent(required('projectId', projectId))}/content`;
}

const invalidResponse = (status: number) =>
  new FolioError({ status, code: 'invalid_response', message: 'Folio answered with an unexpected body' });

/** The `data` of a success body, checked with `valid`, or an `invalid_response` FolioError. */
function successData<T>(status: number, body: unknown, valid: (data: unknown) => boolean): T {
  if (isObject(body) && body.success === true && valid(body.data)) return body.data as T;
  throw invalidResponse(status);
}

const isPagination = (value: unknown): value is Pagination =>
  isObject(value) && typeof value.page === 'number' && typeof value.hasNext === 'boolean';

/**
 * Creates a client of one project's delivery API (`/api/v1`, `Authorization: Bearer`).
 * Error answers throw a `FolioError`; 429, 5xx, network errors and timeouts are retried with
 * backoff, honouring `Retry-After`. Throws at once in a browser (a global `window` or
 * `document`): content keys are server-only.
 * @example
 * const folio = createClient({ baseUrl: process.env.FOLIO_URL, projectId, contentKey });
 * const article = await folio.getArticle('hello-world'); // null when not found
 * for await (const item of folio.articles()) console.log(item.slug);
 * const { changes, cursor, reset } = await folio.sync({ cursor: lastCursor });
 */
export function createClient(options: ClientOptions): FolioClient {
  // Contract rule 5. Either global is taken as a browser: a page, a worker shim or a DOM test
  // runner may define only one of them.
  if (typeof globalThis.window !== 'undefined' || typeof globalThis.document !== 'undefined') {
    throw new Error(BROWSER_ERROR);
  }
  const root = apiRoot(options.baseUrl, options.projectId);
  const settings: RequestSettings = {
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    headers: {
      authorization: `Bearer ${required('contentKey', options.contentKey)}`,
      accept: 'application/json',
    },
    timeoutMs: options.timeoutMs ?? 10_000,
    policy: {
      retries: Math.max(0, options.retries ?? 2),
      baseDelayMs: options.retryDelayMs ?? 250,
      maxDelayMs: options.maxRetryDelayMs ?? 10_000,
    },
    sleep: options.sleep ?? sleep,
    now: options.now ?? Date.now,
    random: options.random ?? Math.random,
  };

  async function listArticles({ page, limit, signal }: ListArticlesOptions = {}): Promise<ArticlePage> {
    const query = new URLSearchParams();
    if (page !== undefined) query.set('page', String(page));
    if (limit !== undefined) query.set('limit', String(limit));
    const url = query.size ? `${root}?${query}` : root;
    const { status, body } = await getJson(url, settings, signal);
    if (status < 200 || status > 299) throw errorFromResponse(status, body);
    const data = successData<ArticleListItem[]>(status, body, Array.isArray);
    const pagination = (body as { pagination?: unknown }).pagination;
    if (!isPagination(pagination)) throw invalidResponse(status);
    return { data, pagination };
  }

  // The API's largest page by default: fewer round trips when reading everything.
  async function* articles({ limit = 100, signal }: Omit<ListArticlesOptions, 'page'> = {}) {
    for (let page = 1; ; page++) {
      const result = await listArticles({ page, limit, signal });
      yield* result.data;
      // An empty page that claims more would loop forever; stop rather than trust it.
      if (!result.pagination.hasNext || result.data.length === 0) return;
    }
  }

  async function getArticle(slug: string, { signal }: RequestOptions = {}): Promise<Article | null> {
    if (typeof slug !== 'string' || slug === '') return null;
    const { status, body } = await getJson(`${root}/by-slug/${encodeURIComponent(slug)}`, settings, signal);
    // Contract: "getArticle(slug) (null on 404)", whatever the body (Folio's not_found, or a
    // proxy's plain-text page).
    if (status === 404) return null;
    if (status < 200 || status > 299) throw errorFromResponse(status, body);
    return successData<Article>(status, body, isObject);
  }

  async function getSitemap({ signal }: RequestOptions = {}): Promise<SitemapEntry[]> {
    const { status, body } = await getJson(`${root}/sitemap`, settings, signal);
    if (status < 200 || status > 299) throw errorFromResponse(status, body);
    return successData<SitemapEntry[]>(status, body, Array.isArray);
  }

  async function changesPage(since: string | undefined, limit: number | undefined, signal?: AbortSignal) {
    const query = new URLSearchParams();
    if (since !== undefined) query.set('since', since);
    if (limit !== undefined) query.set('limit', String(limit));
    const { status, body } = await getJson(
      `${root}/changes${query.size ? `?${query}` : ''}`,
      settings,
      signal,
    );
    if (status < 200 || status > 299) throw errorFromResponse(status, body);
    return successData<ChangesPage>(status, body, isChangesPage);
  }

  async function sync({ cursor, limit, signal }: SyncOptions = {}): Promise<SyncResult> {
    const changes: Change[] = [];
    let since = cursor;
    let reset = false;
    for (;;) {
      let page: ChangesPage;
      try {
        page = await changesPage(since, limit, signal);
      } catch (error) {
        // The history behind the cursor is gone: start over from the whole published set.
        if (!(error instanceof FolioError && error.status === 410) || since === undefined || reset)
          throw error;
        changes.length = 0;
        since = undefined;
        reset = true;
        continue;
      }
      changes.push(...page.changes);
      since = page.cursor;
      // An empty page that claims more would loop forever; stop rather than trust it.
      if (!page.hasMore || page.changes.length === 0) return { changes, cursor: page.cursor, reset };
    }
  }

  return { listArticles, articles, getArticle, getSitemap, sync };
}

const isChangesPage = (value: unknown): value is ChangesPage =>
  isObject(value) &&
  Array.isArray(value.changes) &&
  typeof value.cursor === 'string' &&
  typeof value.hasMore === 'boolean';
