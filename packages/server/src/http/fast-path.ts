import type http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ChangeToken } from '../db/connect.ts';
import { readBearerToken } from '../services/tokens.ts';
import { DELIVERY_CACHE_CONTROL } from './caching.ts';
import {
  type CachedBody,
  type Encoding,
  etagFor,
  negotiateEncoding,
  type ResponseCache,
} from './response-cache.ts';

/** A key that recently authenticated, and what it unlocks, while nothing has been written. */
interface Remembered {
  projectId: string;
  version: number;
  lastUsedAt: number;
  /** The database's change token when the key was checked. */
  token: string;
}

// Matches the delivery routes; anything else goes to the full path.
const DELIVERY = /^\/api\/v1\/projects\/([^/?]+)\/content(?:\/(sitemap|by-slug\/([^/?]+)))?(?:\?(.*))?$/;
const WHOLE_NUMBER = /^[1-9][0-9]{0,9}$/;
// Keys are re-checked on the full path this often, which also keeps lastUsedAt current.
const RECHECK_MS = 60_000;
const ENCODINGS: Encoding[] = ['identity', 'br', 'gzip'];
const MAX_ROUTES = 10_000;

/**
 * Answers delivery requests whose bytes are already cached, before the HTTP framework sees
 * them. Only for a key the full path authenticated since the last write anywhere: the
 * database's change token moves on any commit (a revocation, a publish, another process's
 * write), and then every request takes the full path again. A miss of any kind is not an
 * error: the request goes to the full path.
 *
 * Reading the change token costs a system call (SQLite) or a query (PostgreSQL), as much as
 * the rest of a hit or more, so candidates are answered in batches: the requests parsed in one
 * turn of the event loop wait for the check phase of that turn, the token is read once, after
 * all of them arrived, and each is answered ready or handed to the full path. A request is
 * thus never answered with bytes older than a commit that finished before it was received.
 */
export interface FastPath {
  /**
   * The change token now, or undefined when it cannot be read; read it before the database,
   * then pass it to `remember`.
   */
  changeToken(): Promise<string | undefined>;
  /** Called by the full path after it authenticated `bearer` for `project`. */
  remember(
    bearer: string,
    project: { id: string; content_version: number },
    lastUsedAt: number,
    tokenBeforeLookup: string,
  ): void;
  /** Answers `request` ready, now or later in this turn, or hands it to `fullPath`. */
  serve(request: IncomingMessage, response: ServerResponse, fullPath: http.RequestListener): void;
  /** Requests answered here since start, for operators and tests. */
  readonly hits: number;
}

/** A request that may be answered ready, waiting for this turn's change token. */
interface Candidate {
  request: IncomingMessage;
  response: ServerResponse;
  fullPath: http.RequestListener;
  known: Remembered;
  entry: CachedBody;
}

export function createFastPath(options: {
  cache: ResponseCache;
  changeToken: ChangeToken;
  now: () => number;
}): FastPath {
  const keys = new Map<string, Remembered>();
  let hits = 0;
  const MAX_KEYS = 10_000;
  let batch: Candidate[] = [];
  // A flush is due in this turn's check phase; a token read is in flight. One read at a time:
  // requests that arrive during a read (a PostgreSQL round trip) share the next one.
  let scheduled = false;
  let reading = false;
  function schedule(): void {
    if (scheduled || reading) return;
    scheduled = true;
    setImmediate(() => void answerBatch());
  }

  // What each URL asks for, parsed once: a hit is otherwise mostly regular expressions.
  const routes = new Map<string, Route | null>();
  function routeOf(url: string): Route | null {
    let route = routes.get(url);
    if (route === undefined) {
      route = parseRoute(url);
      if (routes.size >= MAX_ROUTES) routes.clear();
      routes.set(url, route);
    }
    return route;
  }

  function lookup(request: IncomingMessage): Omit<Candidate, 'response' | 'fullPath'> | undefined {
    if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
    const route = routeOf(request.url ?? '');
    if (!route) return undefined;
    const bearer = readBearerToken(request.headers.authorization);
    if (!bearer) return undefined;
    const known = keys.get(bearer);
    if (!known || known.projectId !== route.projectId) return undefined;
    if (options.now() - known.lastUsedAt >= RECHECK_MS) return undefined;
    const entry = options.cache.get(`${known.projectId}:${known.version}:${route.what}`);
    return entry ? { request, known, entry } : undefined;
  }

  async function readToken(): Promise<string | undefined> {
    try {
      return await options.changeToken();
    } catch {
      return undefined;
    }
  }

  async function answerBatch(): Promise<void> {
    scheduled = false;
    const candidates = batch;
    batch = [];
    reading = true;
    const token = await readToken();
    reading = false;
    for (const candidate of candidates) {
      const { request, response, fullPath } = candidate;
      if (
        token === undefined ||
        candidate.known.token !== token ||
        !answer(request, response, candidate.entry)
      ) {
        fullPath(request, response);
      } else {
        hits++;
      }
    }
    if (batch.length > 0) schedule();
  }

  return {
    changeToken: readToken,
    remember(bearer, project, lastUsedAt, tokenBeforeLookup) {
      if (keys.size >= MAX_KEYS) keys.clear();
      // The token from before the lookup: a write racing the lookup leaves it already stale.
      // Keyed by the key itself, not its hash: this map lives only in memory, and hashing
      // would cost as much as the rest of a hit.
      keys.set(bearer, {
        projectId: project.id,
        version: project.content_version,
        lastUsedAt,
        token: tokenBeforeLookup,
      });
    },
    get hits() {
      return hits;
    },
    serve(request, response, fullPath) {
      const found = lookup(request);
      if (!found) {
        fullPath(request, response);
        return;
      }
      batch.push({ ...found, response, fullPath });
      schedule();
    },
  };
}

/** Writes `entry` as the answer to `request`; false when the full path must answer instead. */
function answer(request: IncomingMessage, response: ServerResponse, entry: CachedBody): boolean {
  const held = request.headers['if-none-match'];
  if (held) {
    const matched = held === entry.etag ? held : matchingTag(entry, held);
    if (!matched) return false;
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

/** The tag of `entry` (in any encoding) that an `If-None-Match` list names, if any. */
function matchingTag(entry: CachedBody, held: string): string | undefined {
  const tags = ENCODINGS.map((encoding) => etagFor(entry, encoding));
  if (held.trim() === '*') return tags[0];
  const candidates = held.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  return tags.find((tag) => candidates.includes(tag));
}

/** A delivery URL's project and the cache key part of what it asks for. */
interface Route {
  projectId: string;
  what: string;
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
