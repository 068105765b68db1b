/**
 * How much later than its scheduled delay a retry may come. Never earlier: the schedule is the
 * delay before each retry (contract), which a receiver may rely on.
 */
const JITTER = 0.1;

/**
 * The delay before the next attempt after `attemptsMade` failed ones, or undefined when the
 * schedule is used up. Jitter spreads retries of many deliveries so they do not arrive as a
 * burst. A receiver's `Retry-After` is honoured within the schedule's bounds.
 */
export function nextRetryDelay(
  schedule: number[],
  attemptsMade: number,
  random: () => number,
  retryAfterMs?: number,
): number | undefined {
  const scheduled = schedule[attemptsMade - 1];
  if (scheduled === undefined) return undefined;
  if (retryAfterMs !== undefined) {
    const lowest = Math.min(...schedule);
    const highest = Math.max(...schedule);
    return Math.min(Math.max(retryAfterMs, lowest), highest);
  }
  return Math.round(scheduled * (1 + JITTER * random()));
}

/** `Retry-After` as milliseconds from `now`: delta-seconds or an HTTP date. */
export function parseRetryAfter(header: string | undefined, now: number): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
