import type { Delivery, Pagination, Webhook } from '@folio/schema';
import type { Transaction } from 'kysely';
import type { AttemptRow, Database, DeliveryStatus, WebhookRow } from '../db/tables.ts';
import { AppError, notFound } from '../errors.ts';
import { pruneEvents } from '../store/events.ts';
import * as deliveries from '../store/webhook-deliveries.ts';
import { findWebhook, saveWebhook } from '../store/webhooks.ts';
import { checkWebhookUrl, WebhookAddressError } from '../webhooks/address-guard.ts';
import { generateWebhookSecret } from '../webhooks/secret-box.ts';
import { type ServiceDeps, transact, type WebhookPolicy } from './deps.ts';
import { recordEvent } from './events.ts';
import { isoTime } from './iso-time.ts';
import { type PageQuery, paginate } from './pagination.ts';
import { requireProject } from './projects.ts';
import { inBatches } from './retention.ts';

/** How long the secret before a rotation keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

function policy(deps: ServiceDeps): WebhookPolicy {
  if (!deps.webhooks) throw new Error('webhook policy is not configured');
  return deps.webhooks;
}

function toWebhook(row: WebhookRow | undefined, now: number): Webhook {
  const rotating = row?.previous_secret_expires_at != null && row.previous_secret_expires_at > now;
  return {
    url: row?.url ?? null,
    signed: row?.secret_revealed_at != null,
    enabled: row?.disabled_at == null,
    disabledReason: row?.disabled_reason ?? null,
    secretRotatedAt: rotating ? isoTime(row!.previous_secret_expires_at! - ROTATION_OVERLAP_MS) : null,
  };
}

export async function getWebhook(deps: ServiceDeps, projectId: string): Promise<Webhook> {
  await requireProject(deps, projectId);
  return toWebhook(await findWebhook(deps.db, projectId), deps.now());
}

/**
 * Sets (or with null removes) the webhook URL. The address guard runs here and again at every
 * send. Setting a URL re-enables a webhook that a 410 Gone had disabled.
 */
export async function setWebhookUrl(
  deps: ServiceDeps,
  projectId: string,
  url: string | null,
): Promise<Webhook> {
  await requireProject(deps, projectId);
  if (url !== null) {
    const { allowPrivate, resolve } = policy(deps);
    try {
      await checkWebhookUrl(url, { allowPrivate, resolve });
    } catch (error) {
      if (!(error instanceof WebhookAddressError)) throw error;
      throw new AppError('invalid_body', error.message, [{ path: '/url', message: error.message }]);
    }
  }
  const now = deps.now();
  const row = await saveWebhook(deps.db, projectId, {
    url,
    disabled_at: null,
    disabled_reason: null,
    updated_at: now,
  });
  return toWebhook(row, now);
}

/**
 * Shows the signing secret, creating it on first use. From the first reveal on, deliveries are
 * signed (seed: Webhook signatures); later calls return the same secret.
 */
export async function revealWebhookSecret(deps: ServiceDeps, projectId: string): Promise<string> {
  await requireProject(deps, projectId);
  const { secretBox } = policy(deps);
  return transact(deps, async (trx) => {
    const row = await findWebhook(trx, projectId);
    const now = deps.now();
    if (row?.secret && row.secret_revealed_at !== null) return secretBox.open(row.secret);
    const secret = row?.secret ? secretBox.open(row.secret) : generateWebhookSecret();
    await saveWebhook(trx, projectId, {
      secret: secretBox.seal(secret),
      secret_revealed_at: now,
      updated_at: now,
    });
    return secret;
  });
}

/**
 * Replaces the signing secret. For 24 hours deliveries carry signatures from both the old and
 * the new secret, so a receiver can switch without missing a delivery.
 */
export async function rotateWebhookSecret(deps: ServiceDeps, projectId: string): Promise<string> {
  await requireProject(deps, projectId);
  const { secretBox } = policy(deps);
  return transact(deps, async (trx) => {
    const row = await findWebhook(trx, projectId);
    // Refused as reveal is when the stored secret cannot be opened (sealed, and FOLIO_SECRET_KEY
    // unset or another key): the new one would be stored in plain text beside it, or the old one
    // would go on signing with a key this process cannot read.
    if (row?.secret) secretBox.open(row.secret);
    const now = deps.now();
    const secret = generateWebhookSecret();
    const keepOld = row?.secret && row.secret_revealed_at !== null;
    await saveWebhook(trx, projectId, {
      secret: secretBox.seal(secret),
      secret_revealed_at: now,
      previous_secret: keepOld ? row.secret : null,
      previous_secret_expires_at: keepOld ? now + ROTATION_OVERLAP_MS : null,
      updated_at: now,
    });
    return secret;
  });
}

/** Queues a `webhook.test` event; 409 when there is no URL to send it to. */
export async function sendTestEvent(
  deps: ServiceDeps,
  projectId: string,
): Promise<{ deliveryId: string; webhookId: string }> {
  await requireProject(deps, projectId);
  return transact(deps, async (trx) => {
    await requireSendableWebhook(trx, projectId);
    const { eventId, deliveryId } = await recordEvent(trx, projectId, 'webhook.test', {}, deps.now());
    return { deliveryId: deliveryId!, webhookId: eventId };
  });
}

export async function listDeliveries(
  deps: ServiceDeps,
  projectId: string,
  query: PageQuery,
): Promise<{ data: Delivery[]; pagination: Pagination }> {
  const { rows, attempts, pagination } = await readDeliveries(deps, projectId, query);
  return { data: rows.map((row) => toDelivery(row, attempts)), pagination };
}

/** A delivery as the dashboard's log shows it: the management API's view and the body sent. */
export interface LoggedDelivery extends Delivery {
  /** The JSON body posted to the receiver. */
  payload: string;
}

/** The newest `limit` deliveries of a project with their attempts and what each one posted. */
export async function listLoggedDeliveries(
  deps: ServiceDeps,
  projectId: string,
  query: PageQuery,
): Promise<{ data: LoggedDelivery[]; pagination: Pagination }> {
  const { rows, attempts, pagination } = await readDeliveries(deps, projectId, query);
  return { data: rows.map((row) => ({ ...toDelivery(row, attempts), payload: row.payload })), pagination };
}

async function readDeliveries(deps: ServiceDeps, projectId: string, query: PageQuery) {
  await requireProject(deps, projectId);
  const total = await deliveries.countDeliveries(deps.db, projectId);
  const { pagination, offset } = paginate(query, total);
  const rows =
    offset < total
      ? await deliveries.listDeliveries(deps.db, projectId, { limit: pagination.limit, offset })
      : [];
  const attempts = await deliveries.listAttempts(
    deps.db,
    rows.map((row) => row.id),
  );
  return { rows, attempts, pagination };
}

/** This project's deliveries created since `since`, counted by the status each has now. */
export async function countRecentDeliveries(
  deps: ServiceDeps,
  projectId: string,
  since: number,
): Promise<Record<DeliveryStatus, number>> {
  await requireProject(deps, projectId);
  const counts: Record<DeliveryStatus, number> = { succeeded: 0, pending: 0, failed: 0 };
  for (const { status, count } of await deliveries.countDeliveriesByStatusSince(deps.db, projectId, since)) {
    counts[status] = count;
  }
  return counts;
}

/**
 * Sends a delivery again at once, whatever its state; its attempts keep counting. An attempt in
 * flight is left to finish and be recorded, and the delivery is sent again right after it.
 */
export async function retryDelivery(deps: ServiceDeps, projectId: string, deliveryId: string): Promise<void> {
  await requireProject(deps, projectId);
  const now = deps.now();
  const found = await transact(deps, async (trx) => {
    const resent = await deliveries.requestResend(trx, projectId, deliveryId, now);
    // Said as the test action says it, rather than "queued" for an attempt bound to fail.
    if (resent) await requireSendableWebhook(trx, projectId);
    return resent;
  });
  if (!found) throw notFound(`Delivery "${deliveryId}"`);
}

/** 409 unless the project has a webhook URL that is not disabled. */
async function requireSendableWebhook(trx: Transaction<Database>, projectId: string): Promise<void> {
  const webhook = await findWebhook(trx, projectId);
  if (!webhook?.url) throw new AppError('conflict', 'The project has no webhook URL; set one first.');
  if (webhook.disabled_at !== null) {
    throw new AppError(
      'conflict',
      `The webhook is disabled (${webhook.disabled_reason}); set the URL again to enable it.`,
    );
  }
}

function toDelivery(row: deliveries.DeliveryWithEvent, attempts: AttemptRow[]): Delivery {
  return {
    id: row.id,
    webhookId: row.event_id,
    event: row.event_type,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    createdAt: isoTime(row.created_at),
    nextAttemptAt:
      row.status === 'pending' && row.next_attempt_at !== null ? isoTime(row.next_attempt_at) : null,
    log: attempts
      .filter((attempt) => attempt.delivery_id === row.id)
      .map((attempt) => ({
        attempt: attempt.attempt,
        startedAt: isoTime(attempt.started_at),
        durationMs: attempt.duration_ms,
        statusCode: attempt.status_code,
        error: attempt.error,
        responseBody: attempt.response_body,
      })),
  };
}

// Events deleted per statement while pruning. Each takes its delivery and attempts with it, and
// on SQLite a statement holds the event loop for all of them.
const PRUNE_BATCH = 100;

/**
 * Deletes the webhook log older than the retention (FOLIO_WEBHOOK_RETENTION): events, with their
 * deliveries and attempts, once the delivery is finished and its last attempt is that old. A
 * pending delivery is kept until it finishes. Returns how many events went.
 */
export async function pruneWebhookHistory(deps: ServiceDeps, retentionMs: number): Promise<number> {
  const before = deps.now() - retentionMs;
  return inBatches(PRUNE_BATCH, (size) => pruneEvents(deps.db, before, size));
}
