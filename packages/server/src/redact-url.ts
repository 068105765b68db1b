/** A connection URL fit for logs: its password dropped, or `fallback` when it is not a URL. */
export function redactUrl(url: string, fallback: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return fallback;
  }
}
