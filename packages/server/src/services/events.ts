import { randomBytes } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import { insertEvents } from '../store/events.ts';
import { insertDeliveries } from '../store/webhook-deliveries.ts';
import { findWebhook } from '../store/webhooks.ts';
import { isoTime } from './iso-time.ts';
import { generateId } from './tokens.ts';

/** The webhook event kinds of the contract. */
export type EventType =
  | 'content.created'
  | 'content.updated'
  | 'content.unpublished'
  | 'content.deleted'
  | 'webhook.test';

export interface RecordedEvent {
  eventId: string;
  /** Set when the project has a working webhook URL, so a delivery was queued. */
  deliveryId: string | undefined;
}

/**
 * Stores an event, and its delivery when the project has a webhook, in the caller's
 * transaction: a change that committed always has its event and a change that rolled back
 * never does. The event id is the Standard Webhooks message id, the same on every retry.
 */
export async function recordEvent(
  trx: Transaction<Database>,
  projectId: string,
  type: EventType,
  data: Record<string, unknown>,
  now: number,
): Promise<RecordedEvent> {
  return (await recordEvents(trx, projectId, type, [data], now))[0]!;
}

/**
 * One event of `type` for each item of `data`, as `recordEvent` stores one, with a statement per
 * few hundred rows: a site settings change reports every published article.
 */
export async function recordEvents(
  trx: Transaction<Database>,
  projectId: string,
  type: EventType,
  data: ReadonlyArray<Record<string, unknown>>,
  now: number,
): Promise<RecordedEvent[]> {
  const timestamp = isoTime(now);
  const events = data.map((item) => ({
    id: `msg_${randomBytes(18).toString('base64url')}`,
    project_id: projectId,
    type,
    payload: JSON.stringify({ event: type, projectId, timestamp, data: item }),
    created_at: now,
  }));
  await insertEvents(trx, events);
  const webhook = await findWebhook(trx, projectId);
  if (!webhook?.url || webhook.disabled_at !== null) {
    return events.map((event) => ({ eventId: event.id, deliveryId: undefined }));
  }
  const deliveries = events.map((event) => ({
    id: generateId('dlv'),
    project_id: projectId,
    event_id: event.id,
    status: 'pending' as const,
    next_attempt_at: now,
    lock_token: null,
    locked_until: null,
    last_status_code: null,
    last_error: null,
    created_at: now,
    updated_at: now,
  }));
  await insertDeliveries(trx, deliveries);
  return deliveries.map((delivery) => ({ eventId: delivery.event_id, deliveryId: delivery.id }));
}
