import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database, WebhookRow } from '../db/tables.ts';
import {
  type DeliveryWithEvent,
  finishAttempt,
  insertAttempt,
  leaseDeliveries,
  selectDueDeliveries,
} from '../store/webhook-deliveries.ts';
import { findWebhook, saveWebhook } from '../store/webhooks.ts';
import { type Resolver, resolveWebhookTarget } from './address-guard.ts';
import { type AttemptOutcome, classifyAttempt } from './outcome.ts';
import type { SecretBox } from './secret-box.ts';
import { postWebhook, type SendResult } from './sender.ts';
import { signatureHeader } from './signing.ts';

export interface DispatcherOptions {
  db: Kysely<Database>;
  /** PostgreSQL: claim with FOR UPDATE SKIP LOCKED so several processes share the work. */
  lockRows: boolean;
  now: () => number;
  random?: () => number;
  retryScheduleMs: number[];
  timeoutMs: number;
  allowPrivate: boolean;
  resolve?: Resolver;
  secretBox: SecretBox;
  userAgent: string;
  logger?: Logger;
  /** How often to look for due deliveries when nothing wakes the dispatcher. */
  pollIntervalMs?: number;
  /** Deliveries in flight at once in this process. */
  concurrency?: number;
  /** Deliveries in flight at once per project, so one slow receiver cannot take every slot. */
  perProjectConcurrency?: number;
  /**
   * Waits until every server process serves each commit made so far (the change feed's
   * `settle`): a receiver that refetches on a delivery must get the change, from any of them.
   */
  settle?: () => Promise<void>;
}

export interface Dispatcher {
  start(): void;
  /** Looks for due deliveries now (called after a transaction that recorded events commits). */
  wake(): void;
  /** Claims what is due, sends it, and waits for those attempts: for tests and tools. */
  runOnce(): Promise<number>;
  /** Stops claiming and waits up to `graceMs` for deliveries in flight. */
  stop(graceMs?: number): Promise<void>;
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const {
    db,
    now,
    random = Math.random,
    pollIntervalMs = 1000,
    concurrency = 16,
    perProjectConcurrency = 4,
  } = options;
  // A lease outlives the attempt's timeout, so only a crashed holder ever loses one.
  const leaseMs = options.timeoutMs * 2 + 5_000;
  const workerId = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const inFlight = new Map<string, Promise<void>>();
  const perProject = new Map<string, number>();
  let running = false;
  let wakeUp: (() => void) | undefined;
  // A wake-up that came while the loop was busy claiming: the loop claims again before sleeping.
  let wakeRequested = false;
  const wake = () => {
    if (wakeUp) wakeUp();
    else wakeRequested = true;
  };
  let loopDone: Promise<void> = Promise.resolve();

  async function claim(): Promise<Array<{ delivery: DeliveryWithEvent; token: string }>> {
    const free = concurrency - inFlight.size;
    if (free <= 0) return [];
    const busy = [...perProject].filter(([, count]) => count >= perProjectConcurrency).map(([id]) => id);
    const at = now();
    const token = `${workerId}:${randomUUID()}`;
    const claimed = await db.transaction().execute(async (trx) => {
      const due = await selectDueDeliveries(trx, {
        now: at,
        limit: free * 4,
        excludeProjects: busy,
        lockRows: options.lockRows,
      });
      const picked = pickWithinLimits(due, free, perProject, perProjectConcurrency);
      return leaseDeliveries(trx, picked, { token, until: at + leaseMs, now: at });
    });
    if (claimed.length > 0) await options.settle?.();
    return claimed.map((delivery) => ({ delivery, token }));
  }

  function launch(delivery: DeliveryWithEvent, token: string): Promise<void> {
    perProject.set(delivery.project_id, (perProject.get(delivery.project_id) ?? 0) + 1);
    const work = attempt(delivery, token)
      .catch((error: unknown) =>
        options.logger?.error({ err: error, delivery: delivery.id }, 'delivery attempt failed'),
      )
      .finally(() => {
        inFlight.delete(delivery.id);
        const left = (perProject.get(delivery.project_id) ?? 1) - 1;
        if (left > 0) perProject.set(delivery.project_id, left);
        else perProject.delete(delivery.project_id);
        wake();
      });
    inFlight.set(delivery.id, work);
    return work;
  }

  async function attempt(delivery: DeliveryWithEvent, token: string): Promise<void> {
    const startedAt = now();
    const attemptsMade = delivery.attempts + 1;
    const result = await send(delivery, startedAt);
    const outcome = classifyAttempt(result, {
      attemptsMade,
      now: now(),
      schedule: options.retryScheduleMs,
      random,
    });
    await record(delivery, token, attemptsMade, startedAt, result, outcome);
    options.logger?.info(
      {
        delivery: delivery.id,
        webhookId: delivery.event_id,
        attempt: attemptsMade,
        statusCode: result.statusCode,
        error: result.error,
        status: outcome.patch.status,
      },
      'webhook delivery attempt',
    );
  }

  async function send(delivery: DeliveryWithEvent, startedAt: number): Promise<SendResult> {
    const webhook = await findWebhook(db, delivery.project_id);
    if (!webhook?.url) return { error: 'The project has no webhook URL', body: '', durationMs: 0 };
    if (webhook.disabled_at !== null)
      return { error: `Webhook disabled: ${webhook.disabled_reason}`, body: '', durationMs: 0 };
    try {
      // Checked again at every send: DNS may answer differently than when the URL was set.
      // The lookup spends the attempt's time budget too, so an attempt never outlives its lease.
      const began = performance.now();
      const target = await withDeadline(
        resolveWebhookTarget(webhook.url, { allowPrivate: options.allowPrivate, resolve: options.resolve }),
        options.timeoutMs,
        `resolving the webhook host timed out after ${options.timeoutMs} ms`,
      );
      return await postWebhook(
        target,
        delivery.payload,
        headersFor(delivery, webhook, startedAt),
        Math.max(1, options.timeoutMs - Math.round(performance.now() - began)),
        options.timeoutMs,
      );
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error), body: '', durationMs: 0 };
    }
  }

  function headersFor(
    delivery: DeliveryWithEvent,
    webhook: WebhookRow,
    startedAt: number,
  ): Record<string, string> {
    const timestamp = new Date(Math.floor(startedAt / 1000) * 1000);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': options.userAgent,
      'webhook-id': delivery.event_id,
      'webhook-timestamp': String(timestamp.getTime() / 1000),
    };
    // Seed: deliveries are signed once the secret has been revealed, unsigned before.
    if (webhook.secret && webhook.secret_revealed_at !== null) {
      const secrets = [options.secretBox.open(webhook.secret)];
      if (webhook.previous_secret && (webhook.previous_secret_expires_at ?? 0) > startedAt) {
        secrets.push(options.secretBox.open(webhook.previous_secret));
      }
      headers['webhook-signature'] = signatureHeader(secrets, delivery.event_id, timestamp, delivery.payload);
    }
    return headers;
  }

  async function record(
    delivery: DeliveryWithEvent,
    token: string,
    attemptsMade: number,
    startedAt: number,
    result: SendResult,
    outcome: AttemptOutcome,
  ): Promise<void> {
    const at = now();
    await db.transaction().execute(async (trx) => {
      const held = await finishAttempt(trx, delivery.id, token, {
        ...outcome.patch,
        attempts: attemptsMade,
        updated_at: at,
      });
      if (!held) return; // the lease expired and another claimer owns the delivery now
      await insertAttempt(trx, {
        delivery_id: delivery.id,
        attempt: attemptsMade,
        started_at: startedAt,
        duration_ms: result.durationMs,
        status_code: result.statusCode ?? null,
        error: result.error ?? null,
        response_body: result.body || null,
      });
      if (outcome.disableReason) {
        await saveWebhook(trx, delivery.project_id, {
          disabled_at: at,
          disabled_reason: outcome.disableReason,
          updated_at: at,
        });
      }
    });
  }

  async function loop(): Promise<void> {
    while (running) {
      wakeRequested = false;
      try {
        for (const { delivery, token } of await claim()) void launch(delivery, token);
      } catch (error) {
        options.logger?.error({ err: error }, 'claiming webhook deliveries failed');
      }
      if (!running) break;
      if (wakeRequested) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollIntervalMs);
        wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wakeUp = undefined;
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      loopDone = loop();
    },
    wake,
    async runOnce() {
      const claimed = await claim();
      await Promise.all(claimed.map(({ delivery, token }) => launch(delivery, token)));
      return claimed.length;
    },
    async stop(graceMs = 10_000) {
      running = false;
      wakeUp?.();
      await loopDone;
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      });
      await Promise.race([Promise.allSettled([...inFlight.values()]), grace]);
      clearTimeout(timer);
    },
  };
}

function withDeadline<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/** Picks up to `free` deliveries, at most `limit` per project counting those already in flight. */
function pickWithinLimits(
  due: Array<{ id: string; project_id: string }>,
  free: number,
  inFlightPerProject: Map<string, number>,
  limit: number,
): string[] {
  const counts = new Map(inFlightPerProject);
  const picked: string[] = [];
  for (const { id, project_id } of due) {
    if (picked.length >= free) break;
    const count = counts.get(project_id) ?? 0;
    if (count >= limit) continue;
    counts.set(project_id, count + 1);
    picked.push(id);
  }
  return picked;
}
