// Query parameters a driver takes as a credential (libpq and pg take `password` there too).
const SECRET_PARAMETER = /pass|secret|token/i;

/**
 * A connection URL fit for logs: its password dropped, wherever it is given, or `fallback` when
 * it is not a URL.
 */
export function redactUrl(url: string, fallback: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    for (const name of [...parsed.searchParams.keys()]) {
      if (SECRET_PARAMETER.test(name)) parsed.searchParams.set(name, 'redacted');
    }
    return parsed.toString();
  } catch {
    return fallback;
  }
}
