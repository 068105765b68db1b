import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import { insertEvent } from '../store/events.ts';
import { isoTime } from './deps.ts';

/** The webhook event kinds of the contract. */
export type EventType =
  | 'content.created'
  | 'content.updated'
  | 'content.unpublished'
  | 'content.deleted'
  | 'webhook.test';

/**
 * Stores an event in the caller's transaction, so a change that committed always has its event
 * and a change that rolled back never does. The id is the Standard Webhooks message id.
 */
export async function recordEvent(
  trx: Kysely<Database>,
  projectId: string,
  type: EventType,
  data: Record<string, unknown>,
  now: number,
): Promise<string> {
  const id = `msg_${randomBytes(18).toString('base64url')}`;
  const payload = { event: type, projectId, timestamp: isoTime(now), data };
  await insertEvent(trx, {
    id,
    project_id: projectId,
    type,
    payload: JSON.stringify(payload),
    created_at: now,
  });
  return id;
}
