import { randomBytes } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Database } from '../db/tables.ts';
import { insertEvent } from '../store/events.ts';
import { insertDelivery } from '../store/webhook-deliveries.ts';
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
  const eventId = `msg_${randomBytes(18).toString('base64url')}`;
  const payload = { event: type, projectId, timestamp: isoTime(now), data };
  await insertEvent(trx, {
    id: eventId,
    project_id: projectId,
    type,
    payload: JSON.stringify(payload),
    created_at: now,
  });
  const webhook = await findWebhook(trx, projectId);
  if (!webhook?.url || webhook.disabled_at !== null) return { eventId, deliveryId: undefined };
  const deliveryId = generateId('dlv');
  await insertDelivery(trx, {
    id: deliveryId,
    project_id: projectId,
    event_id: eventId,
    status: 'pending',
    next_attempt_at: now,
    lock_token: null,
    locked_until: null,
    last_status_code: null,
    last_error: null,
    created_at: now,
    updated_at: now,
  });
  return { eventId, deliveryId };
}
