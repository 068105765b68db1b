import {
  signer,
  verifyWebhook,
  type WebhookEvent,
  type WebhookHeaders,
  WebhookVerificationError,
  webhookId,
} from './webhook.ts';
import { createMemoryIdStore, type WebhookIdStore } from './webhook-ids.ts';

/** Options of a webhook receiver. */
export interface WebhookReceiverOptions {
  /** The signing secret (`whsec_…`); server-only (seed rule 5). */
  secret: string;
  /** Called once per verified event, except `webhook.test`. Throw to have Folio retry. */
  onEvent: (event: WebhookEvent, id: string) => void | Promise<void>;
  /** Handled ids, to drop redeliveries. Default: an in-memory store of the last 10,000. */
  seenIds?: WebhookIdStore;
  /** Told when `onEvent` fails; default `console.error`. */
  onError?: (error: unknown) => void;
}

/**
 * What a receiver did with one delivery, and the status to answer with. `in_progress` is a
 * redelivery that arrived while the first is still being handled: 409 has Folio send it again
 * later, when it is either a duplicate or, if the first failed, handled.
 */
export type WebhookOutcome =
  | { status: 204; result: 'handled' | 'duplicate' | 'test'; event: WebhookEvent }
  | { status: 409; result: 'in_progress'; event: WebhookEvent }
  | { status: 400 | 401; result: 'rejected'; error: WebhookVerificationError }
  | { status: 500; result: 'failed'; event: WebhookEvent; error: unknown };

/** A receiver: give it the raw body and headers of one delivery. */
export type WebhookReceiver = (
  rawBody: string | Uint8Array | ArrayBuffer,
  headers: WebhookHeaders,
) => Promise<WebhookOutcome>;

/**
 * Creates a runtime-neutral receiver: verifies, ignores `webhook.test`, drops ids it has seen,
 * calls `onEvent`, and says which status to answer (204, 400, 401, 409 or 500).
 * @example
 * const receive = createWebhookReceiver({ secret, onEvent: () => cache.clear() });
 * export default { fetch: async (req) => new Response(null, { status: (await receive(await req.arrayBuffer(), req.headers)).status }) };
 */
export function createWebhookReceiver(options: WebhookReceiverOptions): WebhookReceiver {
  // A wrong secret is a deployment mistake: fail at start-up, not on every delivery.
  signer(options.secret);
  const seenIds = options.seenIds ?? createMemoryIdStore();
  const inFlight = new Set<string>();
  const onError =
    options.onError ?? ((error) => console.error('@folio/client: webhook onEvent failed', error));
  return async (rawBody, headers) => {
    let event: WebhookEvent;
    try {
      event = verifyWebhook(rawBody, headers, options.secret);
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      return { status: error.reason === 'invalid_payload' ? 400 : 401, result: 'rejected', error };
    }
    if (event.event === 'webhook.test') return { status: 204, result: 'test', event };
    // Verified, so the id header is present.
    const id = webhookId(headers)!;
    // A redelivery arriving while the first is still handled: checked and claimed with no
    // await in between, so two concurrent deliveries cannot both pass. It is not acknowledged:
    // the first may yet fail, and a 2xx here would end Folio's retries of an unhandled event.
    if (inFlight.has(id)) return { status: 409, result: 'in_progress', event };
    inFlight.add(id);
    try {
      if (await seenIds.has(id)) return { status: 204, result: 'duplicate', event };
      try {
        await options.onEvent(event, id);
      } catch (error) {
        // Not remembered, so Folio's retry of this id is handled.
        onError(error);
        return { status: 500, result: 'failed', event, error };
      }
      await seenIds.add(id);
    } finally {
      inFlight.delete(id);
    }
    return { status: 204, result: 'handled', event };
  };
}
