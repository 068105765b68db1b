import { randomBytes } from 'node:crypto';
import type { WebhookEventName } from '@folio/schema';
import type { Transaction } from 'kysely';
import type { Database, NewDeliveryRow, NewEventRow, WebhookRow } from '../db/tables.ts';
import { insertEvents } from '../store/events.ts';
import { batchState } from '../store/project-lock.ts';
import { insertDeliveries } from '../store/webhook-deliveries.ts';
import { findWebhook } from '../store/webhooks.ts';
import { isoTime } from './iso-time.ts';
import { generateId } from './tokens.ts';

/** The webhook event kinds of the contract, as the schema names them. */
export type EventType = WebhookEventName;

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
 * few hundred rows: a site settings change reports every published article. Inside a write
 * batch of the project (`inWriteBatch`), the rows are written when the batch ends, with the
 * rest of its events, and the project's webhook is read once.
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
  const queue = batchState(trx, projectId, QUEUED, () => openQueue(trx, projectId));
  const webhook = queue ? await queue.webhook() : await findWebhook(trx, projectId);
  const deliveries =
    !webhook?.url || webhook.disabled_at !== null
      ? []
      : events.map((event) => ({
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
  if (queue) {
    queue.events.push(...events);
    queue.deliveries.push(...deliveries);
  } else {
    await insertEvents(trx, events);
    await insertDeliveries(trx, deliveries);
  }
  return events.map((event, i) => ({ eventId: event.id, deliveryId: deliveries[i]?.id }));
}

// The key of the events a write batch defers.
const QUEUED = {};

interface Queue {
  events: NewEventRow[];
  deliveries: NewDeliveryRow[];
  webhook(): Promise<WebhookRow | undefined>;
}

function openQueue(
  trx: Transaction<Database>,
  projectId: string,
): { state: Queue; flush: () => Promise<void> } {
  let webhook: Promise<WebhookRow | undefined> | undefined;
  const queue: Queue = {
    events: [],
    deliveries: [],
    webhook: () => {
      webhook ??= findWebhook(trx, projectId);
      return webhook;
    },
  };
  const flush = async () => {
    await insertEvents(trx, queue.events.splice(0));
    await insertDeliveries(trx, queue.deliveries.splice(0));
  };
  return { state: queue, flush };
}
