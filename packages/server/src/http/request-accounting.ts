import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import { budgetAddress } from './client-address.ts';
import type { FastPathRefusal, Metrics } from './metrics.ts';
import type { RateLimits, Spent } from './rate-limits.ts';

// Routes behind a credential: a client address past its failed authentications is refused on
// all of them, valid credential or not. Not the dashboard's assets, which need none: the page
// that says the address is locked out is styled by them.
const AUTHENTICATED = /^\/(api|admin|metrics|dashboard(?!\/assets\/))(\/|$|\?)/;
// Where a 401 counts as a failed authentication (the contract's list: the two APIs, /metrics and
// the dashboard's sign-in; an expired dashboard session is not a guess at anything).
const COUNTED_FAILURES = /^\/(api\/|admin\/|metrics(\?|$)|dashboard\/sign-in(\?|$))/;
// Requests that match no route share one label, so label values stay bounded.
const UNMATCHED = 'unmatched';

/**
 * What every request passes through, answered on the fast path or by the framework alike: the
 * rate limits before it is answered, the metrics once it is. One module, so a cached answer given
 * before the framework is counted exactly where the framework's answers are.
 */
export interface RequestAccounting {
  /** Installs the address check, failure counting and metrics on the framework's path. */
  install(app: FastifyInstance): void;
  /**
   * Spends a request of `credential` (after it was checked) on the framework's path: sets the
   * RateLimit fields, and refuses the request with 429 past the budget.
   */
  spend(request: FastifyRequest, reply: FastifyReply, credential: string): Promise<void>;
  /**
   * Marks a request whose credential was genuine: a 401 it gets afterwards (a preview token
   * used on another article) is a refusal of that use, not a failed authentication.
   */
  authenticated(request: FastifyRequest): void;
  /** The fast path's side of both. */
  fast: FastAccounting;
}

export interface FastAccounting {
  /**
   * Whether the fast path may answer `request` for `credential`, with the header fields to add;
   * undefined hands it to the framework, which refuses it in the contract's words.
   */
  admit(request: IncomingMessage, credential: string): Admitted | undefined | Promise<Admitted | undefined>;
  /** A fast answer given: counted as the framework counts its own. */
  answered(route: string, method: string, status: number, startedAt: number): void;
  /** A delivery request handed to the framework, and why. */
  refused(reason: FastPathRefusal): void;
}

/** Header fields a fast answer carries for the rate limits, if any. */
export type Admitted = Record<string, string>;

/** No fields to add: what a fast answer gets when no per-credential budget is set. */
export const NO_FIELDS: Admitted = Object.freeze({});

export function createRequestAccounting(options: {
  metrics: Metrics;
  limits: RateLimits;
  /** Take the client address from the first `X-Forwarded-For` hop (`FOLIO_TRUST_PROXY`). */
  trustProxy: boolean;
}): RequestAccounting {
  const { metrics, limits } = options;
  const addressOf = (request: IncomingMessage): string => {
    if (options.trustProxy) {
      const forwarded = request.headers['x-forwarded-for'];
      const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
      if (first) return budgetAddress(first);
    }
    return budgetAddress(request.socket.remoteAddress ?? '');
  };

  const spendFast = (credential: string): Admitted | Promise<Admitted | undefined> => {
    const spent = limits.spend(credential);
    if (!spent) return NO_FIELDS;
    return spent.then((result) => (result.allowed ? fieldsOf(result) : undefined));
  };

  const genuine = new WeakSet<FastifyRequest>();

  return {
    install(app) {
      app.addHook('onRequest', async (request) => {
        if (!AUTHENTICATED.test(pathOf(request))) return;
        const wait = await limits.blockedFor(addressOf(request.raw));
        if (wait > 0) throw tooManyFailures(wait);
      });
      app.addHook('onResponse', (request, reply, done) => {
        const status = reply.statusCode;
        if (status === 401 && COUNTED_FAILURES.test(pathOf(request)) && !genuine.has(request)) {
          limits.failed(addressOf(request.raw));
        }
        metrics.answered(
          request.routeOptions.url ?? UNMATCHED,
          request.method,
          status,
          reply.elapsedTime / 1000,
        );
        done();
      });
    },
    authenticated(request) {
      genuine.add(request);
    },
    async spend(_request, reply, credential) {
      const spent = await limits.spend(credential);
      if (!spent) return;
      reply.headers(fieldsOf(spent));
      if (!spent.allowed) {
        throw new AppError(
          'rate_limited',
          `Too many requests for this credential; retry in ${spent.resetSeconds} s.`,
          undefined,
          {
            retryAfterSeconds: spent.resetSeconds,
          },
        );
      }
    },
    fast: {
      admit(request, credential) {
        // Reading the client's address is a share of a cached answer's cost: skipped while no
        // address can be blocked.
        const wait = limits.blocking ? limits.blockedFor(addressOf(request)) : 0;
        if (typeof wait === 'number') return wait > 0 ? undefined : spendFast(credential);
        return wait.then((seconds) => (seconds > 0 ? undefined : spendFast(credential)));
      },
      refused: (reason) => metrics.fastPathRefused(reason),
      answered(route, method, status, startedAt) {
        metrics.cacheHit();
        metrics.answered(route, method, status, (performance.now() - startedAt) / 1000);
      },
    },
  };
}

/**
 * The path the request was routed by: its route's template when one matched. The URL as sent
 * can spell the same route otherwise (`/%61dmin/v1/…` is routed as `/admin/v1/…`), and a test of
 * that spelling would let it past the address check and uncounted.
 */
function pathOf(request: FastifyRequest): string {
  return request.routeOptions.url ?? request.url;
}

function fieldsOf(spent: Spent): Admitted {
  return spent.state
    ? { 'ratelimit-policy': spent.policy, ratelimit: spent.state }
    : { 'ratelimit-policy': spent.policy };
}

function tooManyFailures(seconds: number): AppError {
  return new AppError(
    'rate_limited',
    `Too many failed authentications from this address; retry in ${seconds} s.`,
    undefined,
    { retryAfterSeconds: seconds },
  );
}
