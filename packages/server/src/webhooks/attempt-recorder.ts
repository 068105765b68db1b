import type { Kysely, Transaction } from 'kysely';
import type { Database, NewAttemptRow } from '../db/tables.ts';
import { finishAttempt, insertAttempts } from '../store/webhook-deliveries.ts';
import { saveWebhook } from '../store/webhooks.ts';
import type { AttemptOutcome } from './outcome.ts';
import type { SendResult } from './sender.ts';

/** One attempt that was sent, to be recorded under the lease it was sent with. */
export interface FinishedAttempt {
  deliveryId: string;
  projectId: string;
  /** The lease token of the claim that sent it. */
  token: string;
  /** Its number: the delivery's attempts so far, this one included. */
  attempt: number;
  startedAt: number;
  result: SendResult;
  outcome: AttemptOutcome;
}

/**
 * Records attempts in the caller's transaction, each fenced by its own lease: an attempt whose
 * lease expired and was taken by another claimer changes nothing (that claimer's attempt counts).
 * Returns, for each attempt, whether it was recorded.
 */
export async function recordAttempts(
  trx: Transaction<Database>,
  attempts: FinishedAttempt[],
  at: number,
): Promise<boolean[]> {
  const held: boolean[] = [];
  for (const entry of attempts) {
    const patch = { ...entry.outcome.patch, attempts: entry.attempt, updated_at: at };
    held.push(await finishAttempt(trx, entry.deliveryId, entry.token, patch, at));
  }
  const recorded = attempts.filter((_, i) => held[i]);
  await insertAttempts(trx, recorded.map(toAttemptRow));
  for (const entry of recorded) {
    if (!entry.outcome.disableReason) continue;
    await saveWebhook(trx, entry.projectId, {
      disabled_at: at,
      disabled_reason: entry.outcome.disableReason,
      updated_at: at,
    });
  }
  return held;
}

function toAttemptRow(entry: FinishedAttempt): NewAttemptRow {
  return {
    delivery_id: entry.deliveryId,
    attempt: entry.attempt,
    started_at: entry.startedAt,
    duration_ms: entry.result.durationMs,
    status_code: entry.result.statusCode ?? null,
    error: entry.result.error ?? null,
    response_body: entry.result.body || null,
  };
}

/**
 * Records attempts in batches: those that finish in the same turn, or while the previous batch
 * is being written, share one transaction (one commit, one connection from the pool) instead of
 * taking one each behind the writers. Resolves with whether the attempt was recorded.
 */
export function createAttemptRecorder(
  db: Kysely<Database>,
  now: () => number,
): (attempt: FinishedAttempt) => Promise<boolean> {
  type Waiting = {
    attempt: FinishedAttempt;
    resolve: (held: boolean) => void;
    reject: (error: unknown) => void;
  };
  let queue: Waiting[] = [];
  let writing = false;

  const write = (batch: Waiting[]) =>
    db.transaction().execute((trx) =>
      recordAttempts(
        trx,
        batch.map((waiting) => waiting.attempt),
        now(),
      ),
    );

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        const held = await write(batch);
        for (const [i, waiting] of batch.entries()) waiting.resolve(held[i]!);
      } catch (error) {
        if (batch.length === 1) batch[0]!.reject(error);
        // One attempt the database refuses must not cost the others their record.
        else for (const waiting of batch) await writeAlone(waiting);
      }
    }
    writing = false;
  }

  async function writeAlone(waiting: Waiting): Promise<void> {
    try {
      waiting.resolve((await write([waiting]))[0]!);
    } catch (error) {
      waiting.reject(error);
    }
  }

  return (attempt) =>
    new Promise((resolve, reject) => {
      queue.push({ attempt, resolve, reject });
      if (writing) return;
      writing = true;
      setImmediate(() => void drain());
    });
}
