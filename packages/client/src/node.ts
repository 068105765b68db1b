/**
 * @folio/client/node: the webhook receiver as a `node:http` request handler. Kept apart from
 * the main entry so that one stays Web-API-only for edge runtimes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createWebhookReceiver,
  type WebhookOutcome,
  type WebhookReceiverOptions,
} from './webhook-receiver.ts';

/** Options of `createWebhookHandler`. */
export interface WebhookHandlerOptions extends WebhookReceiverOptions {
  /** Larger bodies are refused with 413. Default 1 MiB, the size Folio accepts for articles. */
  maxBodyBytes?: number;
}

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  // The bytes a JSON parser kept beside its result: Firebase's functions, or Express's
  // `express.json({ verify: (req, res, buf) => { Object.assign(req, { rawBody: buf }); } })`.
  const kept = (req as IncomingMessage & { rawBody?: unknown }).rawBody;
  if (Buffer.isBuffer(kept)) return Promise.resolve(kept);
  // Frameworks with a raw-body parser (express.raw(), express.text()) already read the stream.
  const parsed = (req as IncomingMessage & { body?: unknown }).body;
  if (Buffer.isBuffer(parsed)) return Promise.resolve(parsed);
  if (typeof parsed === 'string') return Promise.resolve(Buffer.from(parsed, 'utf8'));
  // Express 4's parsers set `req.body = {}` when the content type is not theirs (a form
  // parser mounted for the whole app), leaving the stream unread.
  const untouched = isEmptyObject(parsed) && !req.readableDidRead && !req.readableEnded;
  if (parsed !== undefined && !untouched) {
    return Promise.reject(
      new TypeError('createWebhookHandler needs the raw body: mount it before a JSON parser'),
    );
  }
  if (req.readableEnded) {
    return Promise.reject(new TypeError('createWebhookHandler: the request body was already read elsewhere'));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // An oversized body is drained, not destroyed, so the client still receives the 413.
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () => (size > limit ? reject(new BodyTooLarge()) : resolve(Buffer.concat(chunks))));
    req.on('error', reject);
  });
}

function isEmptyObject(value: unknown): boolean {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0
  );
}

/**
 * A `node:http` handler for Folio webhooks: reads the raw body, answers 401 on a bad or
 * missing signature or a stale timestamp, 204 on success, ignores `webhook.test` and drops
 * duplicate `webhook-id`s (204 without calling `onEvent` again; 409 while the first is still
 * being handled). 405 for other methods, 413 for oversized bodies, 500 when `onEvent` throws
 * (so Folio retries).
 * @example
 * import { createWebhookHandler } from '@folio/client/node';
 * const onWebhook = createWebhookHandler({ secret: process.env.FOLIO_WEBHOOK_SECRET!, onEvent: () => cache.clear() });
 * http.createServer((req, res) => (req.url === '/webhooks/folio' ? onWebhook(req, res) : site(req, res)));
 */
export function createWebhookHandler(
  options: WebhookHandlerOptions,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const receive = createWebhookReceiver(options);
  const limit = options.maxBodyBytes ?? 1024 * 1024;
  const onError =
    options.onError ?? ((error) => console.error('@folio/client: webhook handler failed', error));
  return async (req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    let answer: { status: number; reason?: string };
    try {
      answer = describeOutcome(await receive(await readBody(req, limit), req.headers));
    } catch (error) {
      if (error instanceof BodyTooLarge) answer = { status: 413, reason: `The body is over ${limit} bytes` };
      else {
        onError(error);
        // This package's own TypeErrors name a setup mistake (a JSON parser mounted first).
        const own = error instanceof TypeError && error.message.startsWith('createWebhookHandler');
        answer = { status: 500, reason: own ? error.message : HANDLER_FAILED };
      }
    }
    if (answer.reason === undefined) res.writeHead(answer.status).end();
    else res.writeHead(answer.status, { 'content-type': 'text/plain; charset=utf-8' }).end(answer.reason);
  };
}

const HANDLER_FAILED = "The site's webhook handler failed; its log has the error";

/**
 * The status, and for a refusal or a failure a line that Folio's delivery log keeps beside it,
 * so an operator sees why without the site's logs. Only the verifier's own words and fixed
 * text: never an error thrown by the site's `onEvent`.
 */
function describeOutcome(outcome: WebhookOutcome): { status: number; reason?: string } {
  if (outcome.result === 'rejected') return { status: outcome.status, reason: outcome.error.message };
  if (outcome.result === 'failed') return { status: 500, reason: HANDLER_FAILED };
  if (outcome.result === 'in_progress') {
    return { status: 409, reason: 'This webhook-id is still being handled; send it again later' };
  }
  return { status: outcome.status };
}

export type { WebhookEvent, WebhookEventName, WebhookFailure } from './webhook.ts';
export type { WebhookIdStore } from './webhook-ids.ts';
export { createMemoryIdStore } from './webhook-ids.ts';
export type { WebhookReceiverOptions } from './webhook-receiver.ts';
