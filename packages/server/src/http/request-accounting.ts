import { type IncomingMessage, METHODS } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import { budgetAddress } from './client-address.ts';
import { createGroupedReport } from './grouped-report.ts';
import type { FastPathRefusal, Metrics } from './metrics.ts';
import type { RateLimits, Spent } from './rate-limits.ts';
import { answerFields, createRequestIds, REQUEST_ID_HEADER, type RequestLines } from './request-log.ts';

// Routes behind a credential: a client address past its failed authentications is refused on
// all of them, valid credential or not. Not the dashboard's assets, which need none: the page
// that says the address is locked out is styled by them.
const AUTHENTICATED = /^\/(api|admin|metrics|dashboard(?!\/assets\/))(\/|$|\?)/;
// Where a 401 counts as a failed authentication (the contract's list: the two APIs, /metrics and
// the dashboard's sign-in; an expired dashboard session is not a guess at anything).
const COUNTED_FAILURES = /^\/(api\/|admin\/|metrics(\?|$)|dashboard\/sign-in(\?|$))/;
// Requests that match no route share one label, so label values stay bounded.
const UNMATCHED = 'unmatched';
// The status an answer its reader left before it was complete is counted and logged under
// (nginx's "client closed request"): what was sent, if anything, is not what was asked for.
const CLIENT_LEFT = 499;
// Requests answered before any route was looked for (Node's HTTP parser refused their bytes):
// one label of their own, so they are counted without a label value per thing a client sent.
export const BEFORE_ROUTING = '(parser)';
const KNOWN_METHODS = new Set(METHODS);
// A flood of malformed requests is one line a minute, not one per request.
const REFUSALS_REPORT_EVERY_MS = 60_000;
const DEBUG_LEVELS = new Set(['debug', 'trace']);

/** The route label of a request the framework answered: the route template, as metrics use. */
export function routeLabel(request: FastifyRequest): string {
  return request.routeOptions.url ?? UNMATCHED;
}

/**
 * What every request passes through, answered on the fast path or by the framework alike: the
 * rate limits before it is answered, the metrics once it is. One module, so a cached answer given
 * before the framework is counted exactly where the framework's answers are.
 */
export interface RequestAccounting {
  /** Installs the address check, failure counting and metrics on the framework's path. */
  install(app: FastifyInstance, lines: RequestLines): void;
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
  /**
   * A request the router refused (a broken path): Fastify runs no hook for it, nor tells its log
   * controller, so it is counted (as `unmatched`) and its line written once it is answered.
   */
  refusedByRouter(request: FastifyRequest, reply: FastifyReply, lines: RequestLines): void;
  /** A request's id (Fastify's `genReqId`): see `request-log.ts`. */
  requestId(request: IncomingMessage): string;
  /**
   * A request answered by hand before routing (its bytes refused by Node's parser, a missing
   * Host): counted under `(parser)` (or `unmatched`: a method no route has), and reported in a
   * warn line at most once a minute with how many there were.
   */
  refusedBeforeRouting(status: number, method: string | undefined, unmatched?: boolean): void;
  /** The fast path's side of both. */
  fast: FastAccounting;
}

export interface FastAccounting {
  /**
   * Whether the fast path may answer `request` for `credential`, with the header fields to add;
   * undefined hands it to the framework, which refuses it in the contract's words.
   */
  admit(request: IncomingMessage, credential: string): Admitted | undefined | Promise<Admitted | undefined>;
  /**
   * A fast answer given: counted as the framework counts its own. Logged only at debug: a line
   * per cached answer would be a share of its cost.
   */
  answered(request: IncomingMessage, route: string, status: number, startedAt: number): void;
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
  /** Where refusals before routing, and fast answers at debug, are told; none: silent. */
  log?: FastifyBaseLogger | undefined;
  /** How often refusals before routing are reported at most (tests shorten it). */
  refusalsReportEveryMs?: number;
}): RequestAccounting {
  const { metrics, limits, log } = options;
  const requestId = createRequestIds(options.trustProxy);
  const refusals = createRefusalReports(log, options.refusalsReportEveryMs ?? REFUSALS_REPORT_EVERY_MS);
  // Fixed at start: at info, a fast answer costs no check of the level.
  const fastLines = log !== undefined && DEBUG_LEVELS.has(log.level);
  const fastIds = new WeakMap<IncomingMessage, string>();
  const addressOf = (request: IncomingMessage): string => {
    if (options.trustProxy) {
      const forwarded = request.headers['x-forwarded-for'];
      const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
      if (first) return budgetAddress(first);
    }
    return budgetAddress(request.socket.remoteAddress ?? '');
  };

  const spendFast = (credential: string): Admitted | undefined | Promise<Admitted | undefined> => {
    const spent = limits.spend(credential);
    if (!spent) return NO_FIELDS;
    if (!(spent instanceof Promise)) return spent.allowed ? fieldsOf(spent) : undefined;
    return spent.then((result) => (result.allowed ? fieldsOf(result) : undefined));
  };

  const genuine = new WeakSet<FastifyRequest>();

  const admitFast = (
    request: IncomingMessage,
    credential: string,
  ): Admitted | undefined | Promise<Admitted | undefined> => {
    // Reading the client's address is a share of a cached answer's cost: skipped while no
    // address can be blocked.
    const wait = limits.blocking ? limits.blockedFor(addressOf(request)) : 0;
    if (typeof wait === 'number') return wait > 0 ? undefined : spendFast(credential);
    return wait.then((seconds) => (seconds > 0 ? undefined : spendFast(credential)));
  };

  return {
    install(app, lines) {
      app.addHook('onClose', async () => refusals.stop());
      const counted = new WeakSet<FastifyRequest>();
      app.addHook('onRequest', (request, reply, done) => {
        reply.header(REQUEST_ID_HEADER, request.id);
        // A reader that leaves before its answer is complete (in line for a turn, or halfway
        // through a stream) ends no hook of Fastify's, nor its log controller: counted and told
        // here, as nginx does, under 499.
        reply.raw.once('close', () => {
          if (reply.raw.writableFinished || counted.has(request)) return;
          counted.add(request);
          metrics.answered(routeLabel(request), request.method, CLIENT_LEFT, reply.elapsedTime / 1000);
          lines.left(request, reply, CLIENT_LEFT);
        });
        done();
      });
      // Without a promise while no address is blocked: every answer the framework gives pays
      // for this hook.
      app.addHook('onRequest', (request, _reply, done) => {
        if (!limits.blocking || !AUTHENTICATED.test(pathOf(request))) return done();
        const wait = limits.blockedFor(addressOf(request.raw));
        if (typeof wait === 'number') return done(wait > 0 ? tooManyFailures(wait) : undefined);
        wait.then((seconds) => done(seconds > 0 ? tooManyFailures(seconds) : undefined), done);
      });
      app.addHook('onResponse', (request, reply, done) => {
        if (counted.has(request)) return done();
        counted.add(request);
        const status = reply.statusCode;
        if (status === 401 && COUNTED_FAILURES.test(pathOf(request)) && !genuine.has(request)) {
          limits.failed(addressOf(request.raw));
        }
        metrics.answered(routeLabel(request), request.method, status, reply.elapsedTime / 1000);
        done();
      });
    },
    authenticated(request) {
      genuine.add(request);
    },
    refusedByRouter(request, reply, lines) {
      const startedAt = performance.now();
      reply.raw.once('finish', () => {
        const ms = performance.now() - startedAt;
        metrics.answered(UNMATCHED, request.method, reply.statusCode, ms / 1000);
        lines.write(request, reply, ms);
      });
    },
    requestId,
    refusedBeforeRouting(status, method, unmatched = false) {
      const label = method !== undefined && KNOWN_METHODS.has(method) ? method : 'other';
      metrics.answered(unmatched ? UNMATCHED : BEFORE_ROUTING, label, status, 0);
      refusals.add(status);
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
        const admitted = admitFast(request, credential);
        if (!fastLines) return admitted;
        // At debug a fast answer has a line, so it carries the id that line holds.
        const id = requestId(request);
        fastIds.set(request, id);
        const tag = (fields: Admitted | undefined) => fields && { ...fields, [REQUEST_ID_HEADER]: id };
        return admitted instanceof Promise ? admitted.then(tag) : tag(admitted);
      },
      refused: (reason) => metrics.fastPathRefused(reason),
      answered(request, route, status, startedAt) {
        const ms = performance.now() - startedAt;
        metrics.cacheHit();
        metrics.answered(route, request.method!, status, ms / 1000);
        if (fastLines) {
          const fields = answerFields(
            request.method!,
            route,
            request.url ?? '',
            status,
            ms,
            addressOf(request),
          );
          log!.debug({ reqId: fastIds.get(request), ...fields, fast: true }, 'request answered');
        }
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

/** Requests refused before routing, told at most once per `everyMs`, by status. */
function createRefusalReports(log: FastifyBaseLogger | undefined, everyMs: number) {
  const report = createGroupedReport<number>(everyMs, (statuses, refused) =>
    log?.warn(
      { route: BEFORE_ROUTING, refused, statuses: Object.fromEntries(statuses) },
      'requests refused before routing: malformed HTTP, oversized headers or too slow to arrive',
    ),
  );
  return {
    add(status: number) {
      if (log) report.add(status);
    },
    stop: report.stop,
  };
}
