import type {
  Article,
  ArticleListItem,
  Change,
  KeyKind,
  Pagination,
  PreviewArticle,
  PreviewChange,
  PreviewListItem,
  SitemapEntry,
} from './generated/schema.ts';

/*
 * The client's public shapes: what createClient takes, what its methods take and return, and
 * how the kind of key (content or preview) decides the article types.
 */

/** Options of `createClient`, whichever key it reads with. */
export interface CommonClientOptions {
  /** Folio's base address, e.g. `https://folio.example.com`. */
  baseUrl: string;
  /** The project id from the dashboard's Connection card. */
  projectId: string;
  /** The fetch to use; defaults to the global one. */
  fetch?: typeof globalThis.fetch;
  /** Timeout of one attempt, including reading the body. Default 10,000 ms. */
  timeoutMs?: number;
  /** Retries after a 429, a 5xx, a network error or a timeout. Default 2. */
  retries?: number;
  /** First backoff delay, doubled on each retry. Default 250 ms. */
  retryDelayMs?: number;
  /**
   * Cap of any wait between attempts. An answer whose `Retry-After` asks for longer is not
   * retried: its `FolioError` carries `retryAfterMs`. Default 10,000 ms.
   */
  maxRetryDelayMs?: number;
  /** For tests: how to wait between attempts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** For tests: the clock used to read a `Retry-After` date. */
  now?: () => number;
  /** For tests: the jitter source, a number in [0, 1). */
  random?: () => number;
}

/** Options of a client that reads what is published. */
export interface ContentClientOptions extends CommonClientOptions {
  /** A content key (`folio_ck_…`); server-only (seed rule 5). */
  contentKey: string;
  previewKey?: undefined;
}

/** Options of a client that reads the preview perspective: every article, drafts shown. */
export interface PreviewClientOptions extends CommonClientOptions {
  /** A preview key (`folio_pk_…`); server-only, like a content key. */
  previewKey: string;
  contentKey?: undefined;
}

/** Options of `createClient`: a content key or a preview key, and the common settings. */
export type ClientOptions = ContentClientOptions | PreviewClientOptions;

/** Per-call options. */
export interface RequestOptions {
  /** Aborts the call, including waits between retries. */
  signal?: AbortSignal;
}

/** Options of `getArticle` reading with a preview token instead of the client's key. */
export interface PreviewTokenOptions extends RequestOptions {
  /** The `folio_pt_…` token of a preview link: reads that one article, drafts shown, for an hour. */
  previewToken: string;
}

/** Options of `listArticles`. */
export interface ListArticlesOptions extends RequestOptions {
  /** 1-based page. Default 1. */
  page?: number;
  /** Items per page, at most 100. Default 20. */
  limit?: number;
}

/** A list item as a client of a `K` key reads it: with `status` and drafts for a preview key. */
export type ListItemOf<K extends KeyKind> = K extends 'preview' ? PreviewListItem : ArticleListItem;
/** An article by slug as a client of a `K` key reads it. */
export type ArticleOf<K extends KeyKind> = K extends 'preview' ? PreviewArticle : Article;
/** A change of the feed as a client of a `K` key reads it. */
export type ChangeOf<K extends KeyKind> = K extends 'preview' ? PreviewChange : Change;

/** One page of articles: published ones newest first, or the preview perspective's order. */
export interface ArticlePage<T = ArticleListItem> {
  data: T[];
  pagination: Pagination;
}

/** Options of `sync`. */
export interface SyncOptions extends RequestOptions {
  /**
   * The cursor the last sync returned; omit for a first sync of everything published. An empty
   * one (a cursor file truncated or never written) reads everything too, with `reset` true.
   */
  cursor?: string | undefined;
  /** Changes per request, at most 100. Default 100. */
  limit?: number;
}

/** What a sync brings: apply `changes` in order (upsert by `id`, delete by `id`), keep `cursor`. */
export interface SyncResult<C = Change> {
  changes: C[];
  /** Pass it to the next `sync`. */
  cursor: string;
  /**
   * True when the sync started over although a cursor was given: it was older than the
   * server's retained history (410 `cursor_expired`), or empty. `changes` is then the whole
   * published set, so clear the replica before applying them.
   */
  reset: boolean;
}

/**
 * A client of one project's delivery API. `K` is the kind of its key: `content` reads what is
 * published; `preview` reads every article that is not deleted, each as its draft when it has
 * one, with a `status` (`published`, `changed` or `unpublished`) and `publishedAt` null until
 * first published.
 */
export interface FolioClient<K extends KeyKind = 'content'> {
  /** One page of articles. */
  listArticles(options?: ListArticlesOptions): Promise<ArticlePage<ListItemOf<K>>>;
  /** Every article, fetching pages (default limit 100) while `pagination.hasNext`. */
  articles(options?: Omit<ListArticlesOptions, 'page'>): AsyncGenerator<ListItemOf<K>, void, undefined>;
  /**
   * One article by slug, read with a preview link's token instead of the client's key: the
   * article the token was made for, drafts shown, with `status`. Never null: a token that is
   * expired, of a deleted article or of another article (any other slug) throws a FolioError
   * with status 401, and so does any 404 an address that is not Folio's answers.
   * @example
   * const token = url.searchParams.get('token');
   * if (token) article = await folio.getArticle(slug, { previewToken: token });
   */
  getArticle(slug: string, options: PreviewTokenOptions): Promise<PreviewArticle>;
  /** One article with its related links, or null on any 404 answer. */
  getArticle(slug: string, options?: RequestOptions): Promise<ArticleOf<K> | null>;
  /** One entry per published article (a preview key's too): its URL and last modification. */
  getSitemap(options?: RequestOptions): Promise<SitemapEntry[]>;
  /**
   * What changed since `cursor` (everything without one), following `hasMore` to the end. A
   * cursor older than the server's retention (410), or an empty one, starts over without it:
   * `reset` is then true and `changes` is the whole set.
   * @example
   * const { changes, cursor, reset } = await folio.sync({ cursor: saved });
   * if (reset) replica.clear();
   * for (const change of changes) {
   *   if (change.type === 'upsert') replica.set(change.article.id, change.article);
   *   else replica.delete(change.id);
   * }
   * saved = cursor;
   */
  sync(options?: SyncOptions): Promise<SyncResult<ChangeOf<K>>>;
}
