import type http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ChangeWatch } from '../services/change-watch.ts';
import type { KeyCheck, KeyChecks } from '../services/key-checks.ts';
import { readBearerToken } from '../services/tokens.ts';
import { DELIVERY_CACHE_CONTROL } from './caching.ts';
import { memoize } from './memoize.ts';
import {
  type CachedBody,
  deliveryCacheKey,
  etagFor,
  heldTag,
  negotiateEncoding,
  type ResponseCache,
} from './response-cache.ts';

// Matches the delivery routes; anything else goes to the full path.
const DELIVERY = /^\/api\/v1\/projects\/([^/?]+)\/content(?:\/(sitemap|by-slug\/([^/?]+)))?(?:\?(.*))?$/;
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
  cache: ResponseCache;
  watch: ChangeWatch;
  keys: KeyChecks;
}): FastPath {
  let hits = 0;

  // What each URL asks for, parsed once: a hit is otherwise mostly regular expressions.
  const routeOf = memoize(ROUTE_BOUNDS, parseRoute);
  // The token of each Authorization header, parsed once. The token found is then the same
  // string every time, so the key checks' map finds it without hashing and comparing a new one.
  const bearerOf = memoize(BEARER_BOUNDS, readBearerToken);

  function lookup(request: IncomingMessage): { check: KeyCheck; entry: CachedBody } | undefined {
    if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
    const route = routeOf(request.url ?? '');
    if (!route) return undefined;
    const header = request.headers.authorization;
    const bearer = header === undefined ? undefined : bearerOf(header);
    const check = bearer && options.keys.recent(bearer);
    if (!check || check.project.id !== route.projectId) return undefined;
    const entry = options.cache.get(cacheKeyOf(route, check.project.content_version));
    return entry ? { check, entry } : undefined;
  }

  return {
    get hits() {
      return hits;
    },
    serve(request, response, fullPath) {
      const found = lookup(request);
      if (!found) {
        fullPath(request, response);
        return;
      }
      options.watch.later((token) => {
        if (token !== undefined && token === found.check.token && answer(request, response, found.entry)) {
          hits++;
        } else {
          fullPath(request, response);
        }
      });
    },
  };
}

/** Writes `entry` as the answer to `request`; false when the full path must answer instead. */
function answer(request: IncomingMessage, response: ServerResponse, entry: CachedBody): boolean {
  // A tag that is not current gets the whole answer, as on the full path.
  const matched = heldTag(entry, request.headers['if-none-match']);
  if (matched) {
    response.writeHead(304, {
      etag: matched,
      'cache-control': DELIVERY_CACHE_CONTROL,
      vary: 'accept-encoding',
    });
    response.end();
    return true;
  }
  const encoding = negotiateEncoding(request.headers['accept-encoding']);
  const bytes = encoding === 'identity' ? entry.body : entry.variants[encoding];
  // Small bodies are never compressed; a variant not made yet is made on the full path.
  if (!bytes && entry.body.length >= 1024) return false;
  const body = bytes ?? entry.body;
  const sentEncoding = body === entry.body ? 'identity' : encoding;
  const headers: Record<string, string | number> = {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': DELIVERY_CACHE_CONTROL,
    vary: 'accept-encoding',
    etag: etagFor(entry, sentEncoding),
    'content-length': body.length,
  };
  if (sentEncoding !== 'identity') headers['content-encoding'] = sentEncoding;
  response.writeHead(200, headers);
  response.end(request.method === 'HEAD' ? undefined : body);
  return true;
}

/** A delivery URL's project and the cache key part of what it asks for. */
interface Route {
  projectId: string;
  what: string;
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

function parseRoute(url: string): Route | null {
  const match = DELIVERY.exec(url);
  if (!match) return null;
  const projectId = decodeSafely(match[1]!);
  const what = routeKey(match[2], match[3], match[4]);
  return projectId !== undefined && what !== undefined ? { projectId, what } : null;
}

/** The cache key part the delivery routes use, for canonical query strings only. */
function routeKey(
  sub: string | undefined,
  slug: string | undefined,
  query: string | undefined,
): string | undefined {
  if (sub === 'sitemap') return query ? undefined : 'sitemap';
  if (slug !== undefined) {
    const decoded = decodeSafely(slug);
    return decoded !== undefined && !query && !decoded.includes('\u0000') ? `slug:${decoded}` : undefined;
  }
  let page = '1';
  let limit = '20';
  for (const part of (query ?? '').split('&')) {
    if (part === '') continue;
    const [name, value] = part.split('=');
    if (value === undefined || !WHOLE_NUMBER.test(value)) return undefined;
    if (name === 'page') page = value;
    else if (name === 'limit') limit = value;
    else return undefined;
  }
  return `list:${page}:${limit}`;
}

function decodeSafely(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
