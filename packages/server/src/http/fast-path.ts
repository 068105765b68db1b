import type http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { TObject } from '@sinclair/typebox';
import FindMyWay from 'find-my-way';
import type { ChangeWatch } from '../services/change-watch.ts';
import type { KeyCheck, KeyChecks } from '../services/key-checks.ts';
import { readBearerToken } from './bearer.ts';
import { DELIVERY_CACHE_CONTROL } from './caching.ts';
import { type Encoding, MIN_COMPRESS_BYTES, negotiateEncoding } from './compression.ts';
import { heldTag } from './etag.ts';
import { memoize, memoizeLast } from './memoize.ts';
import type { FastPathRefusal } from './metrics.ts';
import { type Admitted, type FastAccounting, NO_FIELDS } from './request-accounting.ts';
import { type CachedBody, deliveryCacheKey, type ResponseCache } from './response-cache.ts';

/** Who may read a route: the kinds of credential it accepts. Only content keys' answers are cached. */
export type CredentialKind = 'content' | 'preview' | 'preview-token';

/**
 * What the fast path needs of a route, from the one table that also registers it with the
 * framework (`routes/delivery/route-table.ts`).
 */
export interface CachedRoute {
  /** The route template, as the framework's router takes it: `/api/v1/projects/:projectId/…`. */
  url: string;
  credentials: readonly CredentialKind[];
  /** The query's schema: its names, types and defaults. */
  querystring?: TObject;
  /** The cache key part of a request, from its decoded params and its query, defaults applied. */
  what(ask: { params: Record<string, string>; query: Record<string, unknown> }): string;
}

/** The router options both routers take, so that both decode a URL the same way. */
export const ROUTER_OPTIONS = {
  // Slugs may be 200 characters, several bytes each once percent-encoded.
  maxParamLength: 4096,
} as const;

const WHOLE_NUMBER = /^[1-9][0-9]{0,9}$/;
// Each bound also counts characters: URLs and headers are the client's choice, up to the header
// size limit each. A route holds about three copies of its URL (project, key part, cache key).
const ROUTE_BOUNDS = { entries: 10_000, chars: 1_000_000 };
const BEARER_BOUNDS = { entries: 10_000, chars: 1_000_000 };

/**
 * Answers delivery requests whose bytes are already cached, before the HTTP framework sees
 * them. Only for a key the full path checked since the last write anywhere: the database's
 * change token moves on any commit (a revocation, a publish, another process's write), and then
 * every request takes the full path again. A miss of any kind is not an error: the request goes
 * to the full path.
 *
 * The token is read through the change watch: the requests parsed in one turn of the event loop
 * share one read, made after all of them arrived, and each is then answered ready or handed to
 * the full path. A request is thus never answered with bytes older than a commit that finished
 * before it was received.
 */
export interface FastPath {
  /** Answers `request` ready, once the change token is confirmed, or hands it to `fullPath`. */
  serve(request: IncomingMessage, response: ServerResponse, fullPath: http.RequestListener): void;
  /** Requests answered here since start, for operators and tests. */
  readonly hits: number;
}

export function createFastPath(options: {
  routes: readonly CachedRoute[];
  cache: ResponseCache;
  watch: ChangeWatch;
  keys: KeyChecks;
  /** Rate limits and metrics, which count fast answers as the framework's own. */
  accounting: FastAccounting;
  /** Epoch milliseconds: the app's clock, which the full path judges freshness by too. */
  now: () => number;
}): FastPath {
  let hits = 0;
  // The same router the framework uses, built from the same table: the two cannot disagree on
  // which route a URL is, nor on how its parameters decode.
  const router = FindMyWay(ROUTER_OPTIONS);
  for (const route of options.routes) router.on('GET', route.url, () => {}, route);
  const parseRoute = (url: string): Route | null => {
    const found = router.find('GET', url);
    if (!found) return null;
    const route = found.store as CachedRoute;
    const query = canonicalQuery(route.querystring, found.searchParams);
    const projectId = found.params.projectId;
    if (!query || projectId === undefined) return null;
    const ask = { params: found.params as Record<string, string>, query };
    return { projectId, what: route.what(ask), route };
  };

  // What each URL asks for, parsed once: a hit is otherwise mostly regular expressions.
  const routeOf = memoize(ROUTE_BOUNDS, parseRoute);
  // The token of each Authorization header, parsed once. The token found is then the same
  // string every time, so the key checks' map finds it without hashing and comparing a new one.
  const bearerOf = memoizeLast(BEARER_BOUNDS, readBearerToken);

  const refused = (reason: FastPathRefusal) => {
    options.accounting.refused(reason);
    return undefined;
  };

  function lookup(request: IncomingMessage): Found | undefined {
    if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
    const route = routeOf(request.url ?? '');
    // Not a delivery route, or not in the form the fast path reads: nothing to count.
    if (!route) return undefined;
    const { headers } = request;
    const last = route.last;
    if (
      last !== undefined &&
      headers.authorization === last.authorization &&
      headers['if-none-match'] === last.ifNoneMatch &&
      headers['accept-encoding'] === last.acceptEncoding
    ) {
      // The key's current check, not merely a recent one: once a commit moved the token, the
      // first request re-checks the key on the full path, and the next finds the new check here.
      const entry = options.cache.get(last.key);
      if (entry?.tags === last.tags && options.keys.recent(last.bearer) === last.check && !expired(entry)) {
        return { check: last.check, bearer: last.bearer, entry, route, prepared: last.prepared };
      }
    }
    const header = headers.authorization;
    const bearer = header === undefined ? undefined : bearerOf(header);
    const check = bearer ? options.keys.recent(bearer) : undefined;
    // Only content keys' answers are ever cached: a preview answer is built for each request.
    if (!bearer || check?.kind !== 'content' || check.project.id !== route.projectId) {
      return refused('credential');
    }
    if (!route.route.credentials.includes('content')) return refused('credential');
    const entry = options.cache.get(cacheKeyOf(route, check.project.content_version));
    if (!entry) return refused('entry');
    if (expired(entry)) return refused('stale');
    return { check, bearer, entry, route, prepared: undefined };
  }

  // An answer that holds a time (a changes feed cursor) is built anew once it is past it.
  function expired(entry: CachedBody): boolean {
    return entry.expiresAt !== undefined && options.now() >= entry.expiresAt;
  }

  return {
    get hits() {
      return hits;
    },
    serve(request, response, fullPath) {
      const startedAt = performance.now();
      const found = lookup(request);
      if (found) options.watch.later((token) => answer(request, response, fullPath, found, startedAt, token));
      else fullPath(request, response);
    },
  };

  // Plain functions rather than closures made for each request: a hit allocates one callback.
  function answer(
    request: IncomingMessage,
    response: ServerResponse,
    fullPath: http.RequestListener,
    found: Found,
    startedAt: number,
    token: string | undefined,
  ): void {
    if (token === undefined || token !== found.check.token) {
      handOver('token', request, response, fullPath);
      return;
    }
    let prepared = found.prepared;
    if (!prepared) {
      prepared = prepare(request, found.entry);
      if (!prepared) {
        handOver('encoding', request, response, fullPath);
        return;
      }
      remember(request, found, prepared);
    }
    const admitted = options.accounting.admit(request, found.check.keyId);
    if (admitted instanceof Promise) {
      admitted.then(
        (fields) => send(request, response, fullPath, found, prepared, startedAt, fields),
        () => fullPath(request, response),
      );
    } else {
      send(request, response, fullPath, found, prepared, startedAt, admitted);
    }
  }

  function send(
    request: IncomingMessage,
    response: ServerResponse,
    fullPath: http.RequestListener,
    found: Found,
    prepared: Prepared,
    startedAt: number,
    fields: Admitted | undefined,
  ): void {
    // Refused: the framework answers in the contract's words, and counts it there.
    if (!fields) {
      handOver('budget', request, response, fullPath);
      return;
    }
    response.writeHead(
      prepared.status,
      fields === NO_FIELDS ? prepared.headers : { ...prepared.headers, ...fields },
    );
    response.end(request.method === 'HEAD' ? undefined : bodyOf(found.entry, prepared));
    hits++;
    options.accounting.answered(found.route.route.url, request.method!, prepared.status, startedAt);
  }

  function handOver(
    reason: FastPathRefusal,
    request: IncomingMessage,
    response: ServerResponse,
    fullPath: http.RequestListener,
  ): void {
    options.accounting.refused(reason);
    fullPath(request, response);
  }
}

/** What a request found before the change token was read. */
interface Found {
  check: KeyCheck;
  /** The token the check was found by, as the bearer memo holds it. */
  bearer: string;
  entry: CachedBody;
  route: Route;
  /** The answer, when the request is the same as the last its URL got. */
  prepared: Prepared | undefined;
}

/** A ready answer to write: its body is the entry's, in `encoding`. */
interface Prepared {
  status: 200 | 304;
  headers: Record<string, string>;
  /** Undefined for a 304, which has no body. */
  encoding: Encoding | undefined;
}

/**
 * The last answer a URL got on the fast path, and the header fields it was given for. The next
 * request of the URL with the same fields (a website's one key, its browser's one
 * `Accept-Encoding`) gets the same answer without parsing its fields or finding the entry's
 * answers again, while the key's check is still the current one; the entry is still asked of the
 * cache, which counts the use. It holds no body: a memo of URLs may hold many of these, and the
 * cache alone bounds the bytes kept.
 */
interface LastHit {
  authorization: string;
  ifNoneMatch: string | undefined;
  acceptEncoding: string | undefined;
  bearer: string;
  check: KeyCheck;
  /** The cache key and the tags of the entry it was prepared from: a rebuilt entry is another. */
  key: string;
  tags: CachedBody['tags'];
  prepared: Prepared;
}

/** Keeps what `request` was answered with as its URL's last hit (see `LastHit`). */
function remember(request: IncomingMessage, found: Found, prepared: Prepared): void {
  const { authorization } = request.headers;
  const key = found.entry.key;
  if (authorization === undefined || key === undefined) return;
  found.route.last = {
    authorization,
    ifNoneMatch: request.headers['if-none-match'],
    acceptEncoding: request.headers['accept-encoding'],
    bearer: found.bearer,
    check: found.check,
    key,
    tags: found.entry.tags,
    prepared,
  };
}

function bodyOf(entry: CachedBody, prepared: Prepared): Buffer | undefined {
  if (prepared.encoding === undefined) return undefined;
  return prepared.encoding === 'identity' ? entry.body : entry.variants[prepared.encoding];
}

// An entry's answers, made once each: a hit then writes them without building headers anew.
const preparedAnswers = new WeakMap<CachedBody, Map<string, Prepared>>();

/** The answer `entry` makes to `request`; undefined when the full path must answer instead. */
function prepare(request: IncomingMessage, entry: CachedBody): Prepared | undefined {
  // A tag that is not current gets the whole answer, as on the full path.
  const matched = heldTag(entry.tags, request.headers['if-none-match']);
  const which = matched ?? negotiateEncoding(request.headers['accept-encoding']);
  let answers = preparedAnswers.get(entry);
  const known = answers?.get(which);
  if (known) return known;
  const made = makeAnswer(entry, matched, which as Encoding);
  if (made) {
    if (!answers) {
      answers = new Map();
      preparedAnswers.set(entry, answers);
    }
    answers.set(which, made);
  }
  return made;
}

function makeAnswer(
  entry: CachedBody,
  matched: string | undefined,
  encoding: Encoding,
): Prepared | undefined {
  if (matched) {
    // What the 200 would have sent, but for its BODY_HEADERS and length (RFC 9110 15.4.5).
    return {
      status: 304,
      headers: { etag: matched, 'cache-control': DELIVERY_CACHE_CONTROL, vary: 'accept-encoding' },
      encoding: undefined,
    };
  }
  const bytes = encoding === 'identity' ? entry.body : entry.variants[encoding];
  // Small bodies are never compressed; a variant not made yet is made on the full path.
  if (!bytes && entry.body.length >= MIN_COMPRESS_BYTES) return undefined;
  const body = bytes ?? entry.body;
  const sentEncoding = body === entry.body ? 'identity' : encoding;
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': DELIVERY_CACHE_CONTROL,
    vary: 'accept-encoding',
    etag: entry.tags[sentEncoding],
    'content-length': String(body.length),
  };
  if (sentEncoding !== 'identity') headers['content-encoding'] = sentEncoding;
  return { status: 200, headers, encoding: sentEncoding };
}

/** A delivery URL's project and the cache key part of what it asks for. */
interface Route {
  projectId: string;
  what: string;
  route: CachedRoute;
  /**
   * The cache key for the last content version asked: the same string while the version stays,
   * so a hit neither concatenates nor hashes a new key.
   */
  key?: { version: number; text: string };
  last?: LastHit;
}

function cacheKeyOf(route: Route, version: number): string {
  if (route.key?.version !== version) {
    route.key = { version, text: deliveryCacheKey(route.projectId, version, route.what) };
  }
  return route.key.text;
}

/**
 * The query as the framework would leave it (defaults applied), for canonical query strings
 * only: names the schema declares, each once, whole numbers in decimal digits. Anything else
 * goes to the full path, which validates it and may still find the answer cached.
 */
function canonicalQuery(
  schema: TObject | undefined,
  search: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const properties = (schema?.properties ?? {}) as Record<string, { type?: unknown; default?: unknown }>;
  const query: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    if (property.default !== undefined) query[name] = property.default;
  }
  for (const [name, value] of Object.entries(search)) {
    const property = properties[name];
    if (typeof value !== 'string') return undefined;
    // A string parameter is taken as given: an answer is only ever cached under the key of a
    // request the full path validated.
    if (property?.type === 'string') query[name] = value;
    else if (property?.type === 'integer' && WHOLE_NUMBER.test(value)) query[name] = Number(value);
    else return undefined;
  }
  return query;
}
