import { WebhookVerificationError as SignatureError, Webhook } from 'standardwebhooks';
import type { WebhookEventName } from './generated/schema.ts';

/** Event names Folio sends (contract, Webhook events); others may be added later. */
export type { WebhookEventName };

/** The `data` of an event: the article's id and slug (and `previousSlug` after a rename). */
export interface WebhookEventData {
  id?: string;
  slug?: string;
  previousSlug?: string;
  [key: string]: unknown;
}

/**
 * A verified webhook delivery body. The seed spec promises only `event` and `projectId`; Folio
 * also sends `timestamp` and `data`, but a receiver must not rely on them, so both are
 * optional: absent when the body has none, or one that is not a string / JSON object. Nothing
 * is filled in for them.
 */
export interface WebhookEvent {
  /** A `WebhookEventName`; treat names you do not know as a content change. */
  event: WebhookEventName | (string & {});
  projectId: string;
  /** When the change committed (ISO 8601); absent when the body carries no string `timestamp`. */
  timestamp?: string;
  /** The article the event is about; absent when the body carries no object `data`. */
  data?: WebhookEventData;
}

/** Request headers as `fetch` (`Headers`) or `node:http` (`IncomingHttpHeaders`) give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** Why a delivery was refused. */
export type WebhookFailure = 'missing_headers' | 'invalid_signature' | 'stale_timestamp' | 'invalid_payload';

/**
 * A delivery that failed verification: answer it with 401 (400 for `invalid_payload`, a
 * correctly signed body that is not an event). Misuse, such as a malformed secret, throws a
 * plain TypeError instead.
 * @example
 * try { verifyWebhook(body, headers, secret); }
 * catch (error) { if (error instanceof WebhookVerificationError) return new Response(null, { status: 401 }); }
 */
export class WebhookVerificationError extends Error {
  readonly reason: WebhookFailure;
  constructor(reason: WebhookFailure, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
  }
}

const SIGNATURE_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  // Any `Headers` (undici's, node-fetch's, another realm's), not only this runtime's global,
  // which `instanceof` alone would pass over and then find no header in.
  if (typeof (headers as Headers).get === 'function' && typeof (headers as Headers).has === 'function') {
    return (headers as Headers).get(name) ?? undefined;
  }
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  const value =
    key === undefined ? undefined : (headers as Record<string, string | string[] | undefined>)[key];
  return Array.isArray(value) ? value.join(' ') : value;
}

/**
 * The raw body as text, byte for byte: the signature covers the exact bytes, so a BOM must
 * not be dropped the way `TextDecoder` does by default.
 */
function bodyText(rawBody: string | Uint8Array | ArrayBuffer): string {
  if (typeof rawBody === 'string') return rawBody;
  if (!(rawBody instanceof Uint8Array || rawBody instanceof ArrayBuffer || ArrayBuffer.isView(rawBody))) {
    throw new TypeError(
      'verifyWebhook needs the raw body as received (a string, Uint8Array or ArrayBuffer), not a parsed one',
    );
  }
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(rawBody);
}

/**
 * What this package uses of standardwebhooks' verifier. Declared here so that the shipped
 * `.d.ts` files do not import that package's own, which name Node's `Buffer`: a Web-only
 * project (no `@types/node`) then type-checks without `skipLibCheck`.
 */
export interface SignatureVerifier {
  verify(payload: string, headers: Record<string, string>, options: { jsonParse: false }): unknown;
}

/**
 * The Standard Webhooks verifier for `secret`; a malformed secret is a TypeError (misuse), so
 * receivers call it once at start-up.
 * @example
 * signer('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
 */
export function signer(secret: string): SignatureVerifier {
  try {
    return new Webhook(secret);
  } catch (error) {
    throw new TypeError('verifyWebhook: the secret must be the signing secret from the dashboard (whsec_…)', {
      cause: error,
    });
  }
}

function checkSignature(payload: string, headers: WebhookHeaders, secret: string): void {
  const signed: Record<string, string> = {};
  for (const name of SIGNATURE_HEADERS) {
    const value = headerValue(headers, name);
    // Folio sends unsigned deliveries until the secret is revealed: those are refused too.
    if (!value) throw new WebhookVerificationError('missing_headers', `Missing ${name} header`);
    signed[name] = value;
  }
  try {
    signer(secret).verify(payload, signed, { jsonParse: false });
  } catch (error) {
    if (!(error instanceof SignatureError)) throw error;
    const stale = /timestamp too (old|new)/i.test(error.message);
    if (stale) throw new WebhookVerificationError('stale_timestamp', error.message);
    // The usual cause when the secret is right: a body parsed and serialized again.
    throw new WebhookVerificationError(
      'invalid_signature',
      `${error.message} (check the secret, and verify the raw body as received, not a re-serialized one)`,
    );
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function parseEvent(payload: string): WebhookEvent {
  let body: unknown;
  try {
    body = JSON.parse(payload);
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'The signed body is not JSON');
  }
  // Seed, Events: the body is a JSON object with string `event` and `projectId`; nothing more
  // is required (the contract's `timestamp` and `data` are extras).
  if (!isObject(body) || typeof body.event !== 'string' || typeof body.projectId !== 'string') {
    throw new WebhookVerificationError('invalid_payload', 'The signed body is not a Folio event');
  }
  const { event, projectId, timestamp, data } = body;
  return {
    event,
    projectId,
    ...(typeof timestamp === 'string' && { timestamp }),
    ...(isObject(data) && { data: data as WebhookEventData }),
  };
}

/**
 * Verifies a delivery against the RAW body with the signing secret (Standard Webhooks,
 * 5-minute timestamp tolerance) and returns the event. Throws `WebhookVerificationError`
 * when headers are missing, the signature does not match or the timestamp is stale, and
 * (`invalid_payload`) when the signed body is not a JSON object with string `event` and
 * `projectId`.
 * @example
 * const event = verifyWebhook(await request.text(), request.headers, process.env.FOLIO_WEBHOOK_SECRET);
 * if (event.event !== 'webhook.test') purgeCache(event.data?.slug);
 */
export function verifyWebhook(
  rawBody: string | Uint8Array | ArrayBuffer,
  headers: WebhookHeaders,
  secret: string,
): WebhookEvent {
  const payload = bodyText(rawBody);
  checkSignature(payload, headers, secret);
  return parseEvent(payload);
}

/**
 * The `webhook-id` of a delivery: the same on every retry of one event, so it deduplicates.
 * @example
 * webhookId(request.headers); // 'msg_2f…'
 */
export function webhookId(headers: WebhookHeaders): string | undefined {
  return headerValue(headers, 'webhook-id');
}
