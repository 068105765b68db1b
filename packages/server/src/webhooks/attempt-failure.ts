/**
 * Why an attempt failed, as `folio_webhook_attempt_failures_total` counts it: a fixed set, so
 * the label stays bounded whatever receivers answer.
 */
export const ATTEMPT_FAILURES = [
  'timeout',
  'connect',
  'tls',
  'redirect',
  'status_4xx',
  'status_5xx',
  'invalid_response',
  'not_sent',
] as const;

export type AttemptFailure = (typeof ATTEMPT_FAILURES)[number];

/** What the delivery log and the process log say of a 3xx (the contract: redirects are not followed). */
export const REDIRECT_NOT_FOLLOWED = 'redirects are not followed';

/** The failure of an answer with a status that is not a 2xx, or undefined for a 2xx. */
export function statusFailure(statusCode: number): AttemptFailure | undefined {
  if (statusCode >= 200 && statusCode < 300) return undefined;
  if (statusCode >= 300 && statusCode < 400) return 'redirect';
  if (statusCode >= 400 && statusCode < 500) return 'status_4xx';
  if (statusCode >= 500 && statusCode < 600) return 'status_5xx';
  return 'invalid_response';
}

// Node's codes for a certificate or handshake that failed: OpenSSL's verification codes and
// Node's own ERR_TLS_/ERR_SSL_ ones.
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|EPROTO$)/;

/**
 * The failure of a request that got no answer, from the error Node gave it: `timedOut` when the
 * attempt's own deadline ended it. Anything else that kept the exchange from starting or
 * finishing (refused, reset, unreachable) counts as `connect`.
 */
export function transportFailure(error: Error & { code?: string }, timedOut: boolean): AttemptFailure {
  if (timedOut) return 'timeout';
  const code = error.code ?? '';
  if (TLS_CODE.test(code)) return 'tls';
  // llhttp's parse errors: the receiver answered something that is not HTTP.
  if (code.startsWith('HPE_')) return 'invalid_response';
  return 'connect';
}
