const DAY_MS = 86_400_000;
// 9999-12-31T23:59:59.999Z: beyond it, toISOString writes a six-digit signed year.
const LAST_FOUR_DIGIT_YEAR_MS = 253_402_300_799_999;
const DAYS_KEPT = 4096;
const datePrefixes = new Map<number, string>();

/**
 * Epoch milliseconds → the contract's ISO 8601 UTC string with milliseconds, exactly as
 * `Date.prototype.toISOString` writes it, for a fraction of its cost: the date part is computed
 * once per day and kept, the time of day is arithmetic. A 100,000-article sitemap formats
 * 100,000 of these.
 */
export function isoTime(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms > LAST_FOUR_DIGIT_YEAR_MS) return new Date(ms).toISOString();
  const day = Math.floor(ms / DAY_MS);
  let date = datePrefixes.get(day);
  if (date === undefined) {
    date = new Date(day * DAY_MS).toISOString().slice(0, 11);
    if (datePrefixes.size >= DAYS_KEPT) datePrefixes.clear();
    datePrefixes.set(day, date);
  }
  let rest = ms - day * DAY_MS;
  const milli = rest % 1000;
  rest = (rest - milli) / 1000;
  const seconds = rest % 60;
  rest = (rest - seconds) / 60;
  const minutes = rest % 60;
  const hours = (rest - minutes) / 60;
  return `${date}${two(hours)}:${two(minutes)}:${two(seconds)}.${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}

function two(n: number): string {
  return n < 10 ? `0${n}` : `${n}`;
}
