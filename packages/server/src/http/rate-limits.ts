import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Budget } from '../config.ts';
import { redactUrl } from '../redact-url.ts';

/** A request counted against a credential's budget: whether it may go on, and what to tell it. */
export interface Spent {
  allowed: boolean;
  /** `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers), on every answer. */
  policy: string;
  state: string;
  /** Whole seconds until the window resets: `Retry-After` on a 429. */
  resetSeconds: number;
}

/**
 * The contract's two budgets. Per credential (`FOLIO_RATE_LIMIT`, off by default): every request
 * of a key or of the admin token counts, cached answers included. Per client address, always on
 * (`FOLIO_AUTH_FAILURE_LIMIT`): failed authentications count, and past the budget the address
 * gets 429 on every authenticated route, valid credential or not, until its window passes.
 *
 * Budgets live in this process, or in Redis when `FOLIO_REDIS_URL` is set, so that processes
 * share them. A Redis that does not answer lets requests through with a logged warning: a rate
 * limiter must not take the API down with it.
 */
export interface RateLimits {
  /**
   * Counts one request of `credential` (a key id, `admin`); undefined when there is no budget.
   * Counted in this process, the answer is at hand: a cached answer then waits for no promise.
   */
  spend(credential: string): Spent | Promise<Spent> | undefined;
  /** Whole seconds `address` must wait after too many failed authentications; 0 when it may go on. */
  blockedFor(address: string): number | Promise<number>;
  /**
   * Whether `blockedFor` may answer anything but 0: false while this process holds no block and
   * no shared count is kept, so a caller may skip reading the client's address.
   */
  readonly blocking: boolean;
  /** Counts a failed authentication from `address`. */
  failed(address: string): void;
  close(): Promise<void>;
}

export interface RateLimitOptions {
  perCredential: Budget | undefined;
  authFailures: Budget;
  redisUrl?: string | undefined;
  warn?: (message: string) => void;
  /**
   * An address just spent its failed authentications and is refused for `seconds`: told once
   * per lockout, by the process whose count closed the door, not on each refused request.
   */
  lockedOut?: (address: string, seconds: number) => void;
  /** Without Redis: how many addresses' failure counts are kept at most (tests lower it). */
  maxTrackedAddresses?: number;
}

// A Redis outage is reported once per this long, not on every request it lets through.
const WARN_EVERY_MS = 60_000;
const POLICY = 'default';

/**
 * Milliseconds on the process's monotonic clock, which every window, block and rest here is
 * timed by: they are spans of time, and the wall clock can step (NTP, a restored VM). Stepped
 * back an hour, it held a one-minute lockout, and its `Retry-After`, an hour longer.
 */
const elapsed = (): number => performance.now();

export async function createRateLimits(options: RateLimitOptions): Promise<RateLimits> {
  const redis = options.redisUrl ? await connectRedis(options.redisUrl, options.warn) : undefined;
  // Without the offline queue and with this flag, a command fails at once while Redis is away.
  const limiter = (store: Redis, budget: Budget, prefix: string) =>
    new RateLimiterRedis({
      points: budget.points,
      duration: budget.seconds,
      keyPrefix: `folio:${prefix}`,
      storeClient: store,
      rejectIfRedisNotReady: true,
    });
  // Budgets are shared through Redis, else counted here in bounded memory: not with the library's
  // memory limiter, whose timer per key fires at once past 2^31-1 ms (a window over 24.8 days,
  // such as 100000/720h, never refused anything) and whose windows follow the wall clock.
  const credentials = options.perCredential && redis && limiter(redis, options.perCredential, 'credential');
  const localCredentials = options.perCredential && boundedWindows(options.perCredential, MAX_BLOCKED);
  const shared = redis && limiter(redis, options.authFailures, 'auth-failures');
  const local = boundedWindows(options.authFailures, options.maxTrackedAddresses ?? MAX_BLOCKED);
  // Addresses known to be past their failure budget, and until when (`elapsed`): checked on every
  // authenticated request without a promise or a round trip.
  const blocked = new Map<string, number>();
  // With Redis: addresses the shared count found under budget, and until when that is trusted.
  const clear = new Map<string, number>();

  // After a command fails, Redis rests: requests skip it, and one of them tries it again once the
  // rest is over. A frozen Redis otherwise cost every request a command timeout or two.
  let restUntil = Number.NEGATIVE_INFINITY;
  let probing = false;
  const redisAvailable = (): boolean => {
    if (restUntil === Number.NEGATIVE_INFINITY) return true;
    if (probing || elapsed() < restUntil) return false;
    probing = true;
    return true;
  };
  const answered = () => {
    restUntil = Number.NEGATIVE_INFINITY;
    probing = false;
  };

  let warnedAt = Number.NEGATIVE_INFINITY;
  const outage = (error: unknown) => {
    restUntil = elapsed() + REDIS_REST_MS;
    probing = false;
    if (elapsed() - warnedAt < WARN_EVERY_MS) return;
    warnedAt = elapsed();
    options.warn?.(
      `rate limits: Redis is not answering (${(error as Error).message}); requests are let through`,
    );
  };

  const block = (address: string, ms: number) => {
    // Bounded like every map keyed by client input: past the bound, the oldest block goes first.
    if (blocked.size >= MAX_BLOCKED) blocked.delete(blocked.keys().next().value!);
    blocked.set(address, elapsed() + ms);
  };
  // A block this process decided, as opposed to one it learned of from the shared count.
  const lockOut = (address: string, ms: number) => {
    const until = blocked.get(address);
    block(address, ms);
    if (until === undefined || until <= elapsed()) options.lockedOut?.(address, Math.ceil(ms / 1000));
  };

  return {
    spend(credential) {
      if (!localCredentials || !options.perCredential) return undefined;
      const budget = options.perCredential;
      if (!credentials) {
        const window = localCredentials.consume(credential);
        return spent(budget, window, window.remainingPoints >= 0);
      }
      const letThrough = { allowed: true, policy: policyHeader(budget), state: '', resetSeconds: 0 };
      if (redis && !redisAvailable()) return letThrough;
      return credentials.consume(credential).then(
        (result) => {
          answered();
          return spent(budget, result, true);
        },
        (result: unknown) => {
          if (result instanceof RateLimiterRes) {
            answered();
            return spent(budget, result, false);
          }
          outage(result);
          return letThrough;
        },
      );
    },
    get blocking() {
      return blocked.size > 0 || redis !== undefined;
    },
    blockedFor(address) {
      const until = blocked.get(address);
      if (until !== undefined) {
        if (until > elapsed()) return Math.ceil((until - elapsed()) / 1000);
        blocked.delete(address);
      }
      if (!shared) return 0;
      // Another process may have seen this address fail: the shared count decides, asked at most
      // once a second per address, so cached answers do not each wait for a round trip.
      const clearUntil = clear.get(address);
      if (clearUntil !== undefined && clearUntil > elapsed()) return 0;
      if (!redisAvailable()) return 0;
      return shared.get(address).then(
        (result) => {
          answered();
          if (!result || result.consumedPoints < options.authFailures.points) {
            if (clear.size >= MAX_BLOCKED) clear.delete(clear.keys().next().value!);
            clear.set(address, elapsed() + CLEAR_FOR_MS);
            return 0;
          }
          block(address, result.msBeforeNext);
          return Math.max(1, Math.ceil(result.msBeforeNext / 1000));
        },
        (error: unknown) => {
          outage(error);
          return 0;
        },
      );
    },
    failed(address) {
      if (!shared) {
        const { remainingPoints, msBeforeNext } = local.consume(address);
        if (remainingPoints <= 0) lockOut(address, msBeforeNext);
        return;
      }
      clear.delete(address);
      if (!redisAvailable()) return;
      shared.consume(address).then(
        // The failure that spent the last point closes the door for the rest of the window.
        (result) => {
          answered();
          if (result.remainingPoints <= 0) lockOut(address, result.msBeforeNext);
        },
        (result: unknown) => {
          if (result instanceof RateLimiterRes) {
            answered();
            block(address, result.msBeforeNext);
          } else outage(result);
        },
      );
    },
    async close() {
      redis?.disconnect();
    },
  };
}

const MAX_BLOCKED = 100_000;

/**
 * Counts per address (failed authentications) or credential in this process: a fixed window
 * each, as the library's memory limiter keeps, but in one map of bounded size whose oldest
 * window goes first, timed on the monotonic clock, without a timer. The library keeps an entry
 * and a timer per address without bound, so failures from ever new addresses (an IPv6 range,
 * forged forwarded addresses) grew the process by hundreds of MB.
 */
function boundedWindows(budget: Budget, maxAddresses: number) {
  const windows = new Map<string, { count: number; resetAt: number }>();
  return {
    consume(address: string): { remainingPoints: number; msBeforeNext: number } {
      const now = elapsed();
      let window = windows.get(address);
      if (!window || window.resetAt <= now) {
        windows.delete(address);
        if (windows.size >= maxAddresses) windows.delete(windows.keys().next().value!);
        window = { count: 0, resetAt: now + budget.seconds * 1000 };
        windows.set(address, window);
      }
      window.count++;
      return { remainingPoints: budget.points - window.count, msBeforeNext: window.resetAt - now };
    },
  };
}
// How long a shared count's "under budget" is trusted: another process's block reaches this one
// at most this late.
const CLEAR_FOR_MS = 1_000;

// How long start-up waits for Redis before it goes on without it (and warns).
const REDIS_CONNECT_MS = 2_000;
// How long a request waits for a Redis that stopped answering (frozen, or cut off without a
// reset) before it is let through: without it, such a Redis held every request forever.
const REDIS_COMMAND_MS = 500;
// How long requests skip a Redis whose command failed before one of them tries it again: a
// frozen Redis then costs one request a command timeout per rest, not every request.
const REDIS_REST_MS = 2_000;

/** Connects, waiting up to a moment for Redis so that budgets hold from the first request. */
async function connectRedis(url: string, warn: RateLimitOptions['warn']): Promise<Redis> {
  // Loaded only when a Redis is configured: a server without one has no use for the client.
  const { Redis: RedisClient } = await import('ioredis');
  const client = new RedisClient(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: REDIS_COMMAND_MS,
  });
  // Reconnection is ioredis's own; each failed command is reported through `outage`.
  client.on('error', () => {});
  const ready = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), REDIS_CONNECT_MS);
    client.once('ready', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  if (!ready)
    warn?.(
      `rate limits: Redis at ${redactUrl(url, 'redis')} is not answering yet; requests are let through until it does`,
    );
  return client;
}

function policyHeader(budget: Budget): string {
  return `"${POLICY}";q=${budget.points};w=${budget.seconds}`;
}

function spent(
  budget: Budget,
  result: { remainingPoints: number; msBeforeNext: number },
  allowed: boolean,
): Spent {
  const resetSeconds = Math.max(1, Math.ceil(result.msBeforeNext / 1000));
  return {
    allowed,
    policy: policyHeader(budget),
    state: `"${POLICY}";r=${Math.max(0, result.remainingPoints)};t=${resetSeconds}`,
    resetSeconds,
  };
}

/** The line a lockout writes: an operator sees who was shut out, and for how long. */
export function warnLockedOut(
  logger: { warn(fields: object, message: string): void },
  address: string,
  seconds: number,
): void {
  logger.warn({ address, seconds }, 'address locked out after too many failed authentications');
}
