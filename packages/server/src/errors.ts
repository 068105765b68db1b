import type { ErrorCode } from '@folio/schema';
/**
 * The error catalogue: each code of the contract with its HTTP status and default message. The
 * only place statuses are chosen; the HTTP layer maps an `AppError` once.
 */
export const ERRORS = {
  bad_request: { status: 400, message: 'The request is not valid HTTP.' },
  invalid_query: { status: 400, message: 'The query string is not valid.' },
  invalid_body: { status: 400, message: 'The request body is not valid.' },
  unauthorized: { status: 401, message: 'A valid bearer token is required.' },
  forbidden: { status: 403, message: 'This key cannot access that project.' },
  not_found: { status: 404, message: 'Nothing was found at this address.' },
  conflict: { status: 409, message: 'The request conflicts with the current state.' },
  cursor_expired: {
    status: 410,
    message: 'The cursor is older than the retained history of changes; sync again without it.',
  },
  payload_too_large: { status: 413, message: 'The request body is larger than 1 MiB.' },
  unsupported_media_type: { status: 415, message: 'The request body must be application/json.' },
  request_timeout: { status: 408, message: 'The request did not arrive in time.' },
  expectation_failed: {
    status: 417,
    message: 'The server meets no expectation but 100-continue; send the request without that Expect header.',
  },
  rate_limited: { status: 429, message: 'Too many requests; retry later.' },
  headers_too_large: { status: 431, message: 'The request headers are larger than the server accepts.' },
  internal: { status: 500, message: 'Something went wrong on our side.' },
  unavailable: { status: 503, message: 'The service is not ready.' },
} as const satisfies Record<ErrorCode, { status: number; message: string }>;

// How long a client waits before trying again after a 503: long enough for a lost database
// connection to be replaced, short enough that a site recovers soon after a failover.
const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

// The codes are the schema's, which documents them in the OpenAPI and types the SDK's errors.
export type { ErrorCode };

/** One problem with one field of the input: a JSON Pointer and a human sentence. */
export interface ErrorDetail {
  path: string;
  message: string;
}

/** An expected failure, carried as a value with a code from the catalogue. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  readonly status: number;
  /** Whole seconds for `Retry-After`, on answers that a later retry can change (429, 503). */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ErrorCode,
    message?: string,
    details?: ErrorDetail[],
    options: { retryAfterSeconds?: number } = {},
  ) {
    super(message ?? ERRORS[code].message);
    this.name = 'AppError';
    this.code = code;
    this.status = ERRORS[code].status;
    this.details = details;
    this.retryAfterSeconds =
      options.retryAfterSeconds ?? (code === 'unavailable' ? UNAVAILABLE_RETRY_AFTER_SECONDS : undefined);
  }
}

/** `503 unavailable` for a request that needed the database while it could not be reached. */
export function databaseUnavailable(): AppError {
  return new AppError('unavailable', 'The database cannot be reached at the moment; retry shortly.');
}

/** `503 unavailable` for a write the database refused to store (a full or read-only disk). */
export function databaseCannotStore(): AppError {
  return new AppError(
    'unavailable',
    'The database cannot store changes at the moment (its disk is full or read-only); retry later.',
  );
}

/** `404 not_found` naming what was missing. */
export function notFound(what: string): AppError {
  return new AppError('not_found', `${what} was not found.`);
}

/**
 * An unexpected error's own words, for one line: a refused connection tried on several
 * addresses is an AggregateError whose message is empty, so its first error speaks for it.
 */
export function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return reasonOf(error.errors[0]);
  return error instanceof Error ? error.message || error.name : String(error);
}
