import type { ErrorBody, ErrorCode } from './generated/schema.ts';

/**
 * A `FolioError`'s code: one of the API's, or the client's own for a request that got no usable
 * answer. A closed union, so that `error.code === 'not_fund'` fails to compile.
 */
export type FolioErrorCode = ErrorCode | 'network_error' | 'timeout' | 'invalid_response' | 'http_error';

/** One validation problem the API reported: JSON Pointer of the field and what is wrong. */
export type FolioErrorDetail = NonNullable<ErrorBody['error']['details']>[number];

/** What a `FolioError` is built from. */
export interface FolioErrorInit {
  status: number;
  code: FolioErrorCode;
  message: string;
  details?: FolioErrorDetail[];
  retryAfterMs?: number;
  cause?: unknown;
}

/**
 * An error answer of the Folio API, or a request that got no usable answer. `code` is the
 * API's snake_case code (`not_found`, `unauthorized`, `rate_limited`, ...) or one of the
 * client's own: `network_error` and `timeout` (status 0), `invalid_response`, `http_error`.
 * @example
 * try { await client.listArticles({ page: 0 }); }
 * catch (error) { if (error instanceof FolioError && error.code === 'invalid_query') ... }
 */
export class FolioError extends Error {
  /** HTTP status, or 0 when no answer arrived. */
  readonly status: number;
  readonly code: FolioErrorCode;
  // Declared, not defined: a field left out of the answer is no own property set to undefined.
  declare readonly details?: FolioErrorDetail[];
  /**
   * How long the answer's `Retry-After` asked to wait, in milliseconds, on a 429 or 5xx that
   * carried one: try again after it. A wait longer than `maxRetryDelayMs` is not retried at all.
   */
  declare readonly retryAfterMs?: number;

  constructor(init: FolioErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'FolioError';
    this.status = init.status;
    this.code = init.code;
    if (init.details) this.details = init.details;
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/**
 * Why a 401 may not be the key's fault: fetch followed a redirect to another origin (a proxy
 * sending http:// to https://, or to another host) and, as the Fetch standard says, dropped
 * `Authorization` on the way. Folio then answers 401 to a key that is right.
 */
function keyDropped({ url, redirectedTo }: { url?: string; redirectedTo?: string }): string {
  if (url === undefined || redirectedTo === undefined) return '';
  const from = originOf(url);
  const to = originOf(redirectedTo);
  if (from === undefined || to === undefined || from === to) return '';
  const at = url.indexOf('/api/v1/');
  const basePath = at === -1 ? '' : url.slice(from.length, at);
  return (
    ` (The request was redirected to ${to}, another origin, and fetch does not send the key there: ` +
    `set baseUrl to ${JSON.stringify(to + basePath)}.)`
  );
}

/**
 * The `FolioError` for an error answer: the contract's `{ success: false, error }` body when
 * present, else a generic `http_error` naming the status.
 * @example
 * errorFromResponse({ status: 404, body: { success: false, error: { code: 'not_found', message: 'No such article' } } }).code;
 * // 'not_found'
 */
export function errorFromResponse(answer: {
  url?: string;
  redirectedTo?: string;
  status: number;
  body: unknown;
  retryAfterMs?: number;
}): FolioError {
  const { url, status, body, retryAfterMs } = answer;
  const retry = retryAfterMs !== undefined && { retryAfterMs };
  const error = isObject(body) ? body.error : undefined;
  if (isObject(error) && typeof error.code === 'string' && typeof error.message === 'string') {
    const details = Array.isArray(error.details) ? (error.details as FolioErrorDetail[]) : undefined;
    return new FolioError({
      status,
      // A server newer than this client may answer a code the union does not name yet.
      code: error.code as FolioErrorCode,
      message: status === 401 ? `${error.message}${keyDropped(answer)}` : error.message,
      ...(details && { details }),
      ...retry,
    });
  }
  // Not Folio's words: a proxy in between, or a baseUrl that is some other server's.
  const from = url === undefined ? '' : ` from ${url.split('?')[0]}`;
  return new FolioError({
    status,
    code: 'http_error',
    message: `HTTP ${status}${from}, without a Folio error body (a proxy's answer, or is baseUrl another server?)`,
    ...retry,
  });
}
