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
    const header = request.headers.authorization;
    const bearer = header === undefined ? undefined : bearerOf(header);
    const check = bearer ? options.keys.recent(bearer) : undefined;
    // Only content keys' answers are ever cached: a preview answer is built for each request.
    if (check?.kind !== 'content' || check.project.id !== route.projectId) return refused('credential');
    if (!route.route.credentials.includes('content')) return refused('credential');
    const entry = options.cache.get(cacheKeyOf(route, check.project.content_version));
    if (!entry) return refused('entry');
    // An answer that holds a time (a changes feed cursor) is built anew once it is past it.
    if (entry.expiresAt !== undefined && options.now() >= entry.expiresAt) return refused('stale');
    return { check, entry, route };
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
    const prepared = prepare(request, found.entry);
    if (!prepared) {
      handOver('encoding', request, response, fullPath);
      return;
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
    response.end(request.method === 'HEAD' ? undefined : prepared.body);
    hits++;
    options.accounting.answered(request, found.route.route.url, prepared.status, startedAt);
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
  entry: CachedBody;
  route: Route;
}

/** A ready answer to write. */
interface Prepared {
  status: 200 | 304;
  headers: Record<string, string | number>;
  body: Buffer | undefined;
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
      body: undefined,
    };
  }
  const bytes = encoding === 'identity' ? entry.body : entry.variants[encoding];
  // Small bodies are never compressed; a variant not made yet is made on the full path.
  if (!bytes && entry.body.length >= MIN_COMPRESS_BYTES) return undefined;
  const body = bytes ?? entry.body;
  const sentEncoding = body === entry.body ? 'identity' : encoding;
  const headers: Record<string, string | number> = {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': DELIVERY_CACHE_CONTROL,
    vary: 'accept-encoding',
    etag: entry.tags[sentEncoding],
    'content-length': String(body.length),
  };
  if (sentEncoding !== 'identity') headers['content-encoding'] = sentEncoding;
  return { status: 200, headers, body };
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
