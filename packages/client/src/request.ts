import { FolioError } from './folio-error.ts';
import { backoffDelay, parseRetryAfter, type RetryPolicy } from './retry.ts';

/** Everything a request needs; tests inject `fetch`, `sleep`, `now` and `random`. */
export interface RequestSettings {
  fetch: typeof globalThis.fetch;
  headers: Record<string, string>;
  /** Fetch's cache mode; set to `no-store` for drafts, left out (the default) otherwise. */
  cache?: RequestCache;
  timeoutMs: number;
  policy: RetryPolicy;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => number;
  random: () => number;
}

/** A final HTTP answer: its status and its body parsed as JSON (undefined when not JSON). */
export interface Answer {
  /** The address asked, for error messages (it holds no credential). */
  url: string;
  /** Where fetch ended up when it followed a redirect, else undefined. */
  redirectedTo?: string;
  status: number;
  /** The answer's `Content-Type`, for error messages. */
  contentType: string | null;
  /** The body's first characters as received, for error messages. */
  start: string;
  body: unknown;
  /** Milliseconds a `Retry-After` header asked to wait, on a 429 or 5xx that carried one. */
  retryAfterMs?: number;
}

// Enough of a body to tell a web page or another API's JSON from Folio's.
const START_LENGTH = 120;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** One attempt; a missing answer comes back as a FolioError so the caller can retry it. */
async function attempt(
  url: string,
  settings: RequestSettings,
  signal?: AbortSignal,
): Promise<Answer | FolioError> {
  const timeout = AbortSignal.timeout(settings.timeoutMs);
  try {
    const response = await settings.fetch(url, {
      method: 'GET',
      headers: settings.headers,
      ...(settings.cache ? { cache: settings.cache } : {}),
      // The timeout covers reading the body too, since the same signal aborts it.
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    const text = await response.text();
    const retryAfterMs = isRetryableStatus(response.status)
      ? parseRetryAfter(response.headers.get('retry-after'), settings.now())
      : undefined;
    return {
      url,
      ...(response.redirected && response.url && { redirectedTo: response.url }),
      status: response.status,
      contentType: response.headers.get('content-type'),
      start: text.slice(0, START_LENGTH),
      body: parseJson(text),
      ...(retryAfterMs !== undefined && { retryAfterMs }),
    };
  } catch (error) {
    // The caller gave up: no retry, and their own reason rather than a FolioError.
    if (signal?.aborted) throw signal.reason;
    const where = new URL(url).origin;
    if (timeout.aborted) {
      return new FolioError({
        status: 0,
        code: 'timeout',
        message: `Folio at ${where} did not answer within ${settings.timeoutMs} ms`,
        cause: error,
      });
    }
    const reason = error instanceof Error ? error.message : String(error);
    const code = systemCode(error);
    return new FolioError({
      status: 0,
      code: 'network_error',
      message: `Could not reach Folio at ${where}: ${reason}${code ? ` (${code})` : ''}`,
      cause: error,
    });
  }
}

/**
 * The system error behind a failed fetch (`ECONNREFUSED`, `ENOTFOUND`…): undici's "fetch
 * failed" keeps it in `cause`, where a reader of the message would not look.
 */
function systemCode(error: unknown): string | undefined {
  for (let at = error, depth = 0; at instanceof Error && depth < 3; at = at.cause, depth++) {
    const code = (at as Error & { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
  }
  return undefined;
}

const isRetryableStatus = (status: number) => status === 429 || (status >= 500 && status <= 599);

const waitable = (answer: Answer, policy: RetryPolicy) =>
  answer.retryAfterMs === undefined || answer.retryAfterMs <= policy.maxDelayMs;

/**
 * GETs `url`, retrying 429, 5xx, network errors and timeouts with backoff (honouring
 * `Retry-After`), and returns the final answer whatever its status. An answer that asks for a
 * longer wait than the policy's cap is final at once: retrying earlier than asked would only
 * be refused again. Throws a FolioError when the last attempt got no answer.
 * @example
 * const { status, body } = await getJson('https://folio.example.com/api/v1/...', settings);
 */
export async function getJson(url: string, settings: RequestSettings, signal?: AbortSignal): Promise<Answer> {
  for (let retry = 0; ; retry++) {
    const result = await attempt(url, settings, signal);
    const canRetry = retry < settings.policy.retries;
    if (result instanceof FolioError) {
      if (!canRetry) throw result;
      await settings.sleep(backoffDelay(retry, settings.policy, settings.random), signal);
    } else if (canRetry && isRetryableStatus(result.status) && waitable(result, settings.policy)) {
      const delay = result.retryAfterMs ?? backoffDelay(retry, settings.policy, settings.random);
      await settings.sleep(delay, signal);
    } else {
      return result;
    }
  }
}
