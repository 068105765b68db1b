/** How a request is retried on 429, 5xx, network errors and timeouts. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  retries: number;
  /** First backoff delay; it doubles on each retry. */
  baseDelayMs: number;
  /** Upper bound of any wait; an answer whose `Retry-After` asks for more is not retried. */
  maxDelayMs: number;
}

// RFC 9110's obsolete asctime date, `Sun Nov  6 08:49:37 1994`.
const ASCTIME = /^[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

/**
 * Milliseconds a `Retry-After` header asks to wait (delta-seconds or an HTTP date), or
 * undefined when absent or unreadable.
 * @example
 * parseRetryAfter('3', Date.now()); // 3000
 * parseRetryAfter('Wed, 21 Oct 2026 07:28:00 GMT', Date.parse('Wed, 21 Oct 2026 07:27:58 GMT')); // 2000
 */
export function parseRetryAfter(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // HTTP dates begin with a day name; without this check Date.parse would read '1.5' as a year.
  // The asctime form has no zone and means GMT, where Date.parse would take local time.
  const zoned = ASCTIME.test(value) ? `${value} GMT` : value;
  const date = /^[A-Za-z]{3}/.test(value) ? Date.parse(zoned) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Exponential backoff with "equal jitter": half the doubled delay is fixed, half random, so
 * clients that failed together do not retry together yet never retry at once.
 * @example
 * backoffDelay(2, { retries: 3, baseDelayMs: 100, maxDelayMs: 5000 }, () => 0.5); // 300
 */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * Waits `ms`, or rejects with the signal's reason when it aborts first.
 * @example
 * await sleep(250, AbortSignal.timeout(1000));
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
