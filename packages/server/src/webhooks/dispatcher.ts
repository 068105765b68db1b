import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { DEFAULT_WEBHOOK_CONCURRENCY } from '../config.ts';
import type { Database, DeliveryStatus, WebhookRow } from '../db/tables.ts';
import { DeadlineError, withDeadline } from '../deadline.ts';
import { createFailureStreak } from '../failure-streak.ts';
import {
  type DeliveryWithEvent,
  leaseDeliveries,
  releaseLease,
  selectDueDeliveries,
} from '../store/webhook-deliveries.ts';
import { findWebhooks } from '../store/webhooks.ts';
import { type Resolver, resolveWebhookTarget, WebhookAddressError } from './address-guard.ts';
import type { AttemptFailure } from './attempt-failure.ts';
import { createAttemptRecorder } from './attempt-recorder.ts';
import { type AttemptOutcome, classifyAttempt } from './outcome.ts';
import { type SecretBox, SecretUnavailableError } from './secret-box.ts';
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
  /** Deliveries in flight at once per project (FOLIO_WEBHOOK_CONCURRENCY). */
  perProjectConcurrency?: number;
  /** Deliveries in flight at once in this process (by default room for several projects). */
  concurrency?: number;
  /**
   * Waits until every server process serves each commit made so far (the change feed's
   * `settle`): a receiver that refetches on a delivery must get the change, from any of them.
   */
  settle?: () => Promise<void>;
  /**
   * Told each recorded attempt's outcome (for the metrics): the delivery's status after it, and
   * why the attempt failed unless it succeeded.
   */
  onAttempt?: (status: DeliveryStatus, failure: AttemptFailure | undefined) => void;
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

// The process-wide limit leaves room for several projects at their own limit at once, so one
// slow receiver holds at most a share of the slots.
const PROJECTS_AT_FULL_PACE = 4;
const MIN_CONCURRENCY = 16;
// A project this process has not heard succeed yet starts at this many in flight (see `paces`).
const OPENING_PACE = 4;
// Retry times a process keeps to wake up for; past this many, polling finds the rest.
const MAX_NOTED_RETRIES = 10_000;
// How long a process that cannot sign a project's deliveries leaves them to other processes
// before it looks again (its FOLIO_SECRET_KEY does not change while it runs; the secret may).
const UNSIGNABLE_REST_MS = 60_000;

/** A delivery this process holds the lease on, with its project's webhook as the claim read it. */
interface Claimed {
  delivery: DeliveryWithEvent;
  webhook: WebhookRow | undefined;
  token: string;
  /** Resolves once every server process serves the commits the claim saw: only then is it sent. */
  served: Promise<void>;
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const {
    db,
    now,
    random = Math.random,
    pollIntervalMs = 1000,
    perProjectConcurrency = DEFAULT_WEBHOOK_CONCURRENCY,
    concurrency = Math.max(MIN_CONCURRENCY, perProjectConcurrency * PROJECTS_AT_FULL_PACE),
  } = options;
  // A lease outlives the attempt's timeout, so only a crashed holder ever loses one.
  const leaseMs = options.timeoutMs * 2 + 5_000;
  const workerId = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const inFlight = new Map<string, Promise<void>>();
  const perProject = new Map<string, number>();
  // Each project's own limit, below FOLIO_WEBHOOK_CONCURRENCY while its receiver is unproven or
  // failing: a failed attempt drops it to one, each success doubles it. A receiver that is down
  // or hangs then holds a slot or a few of the process's, not its full share, so a handful of
  // them cannot take every slot from the projects whose receivers answer; one that comes back
  // is at full pace again after a few answers.
  const paces = new Map<string, number>();
  const paceOf = (projectId: string) => paces.get(projectId) ?? Math.min(OPENING_PACE, perProjectConcurrency);
  const notePace = (projectId: string, succeeded: boolean) =>
    paces.set(projectId, succeeded ? Math.min(perProjectConcurrency, paceOf(projectId) * 2) : 1);
  const record = createAttemptRecorder(db, now);
  let running = false;
  let wakeUp: (() => void) | undefined;
  // A wake-up that came while the loop was busy claiming: the loop claims again before sleeping.
  let wakeRequested = false;
  const wake = () => {
    if (wakeUp) wakeUp();
    else wakeRequested = true;
  };
  let loopDone: Promise<void> = Promise.resolve();
  const claims = createFailureStreak({
    failing: (error, tries) =>
      options.logger?.error({ err: error, tries }, 'claiming webhook deliveries failed; retrying'),
    recovered: (tries) => options.logger?.info({ tries }, 'claiming webhook deliveries works again'),
  });
  const unsignable = createFailureStreak({
    failing: (error, tries) =>
      options.logger?.error(
        { err: error, tries },
        'cannot sign webhook deliveries: left to a process with the right FOLIO_SECRET_KEY',
      ),
    recovered: (tries) => options.logger?.info({ tries }, 'signing webhook deliveries works again'),
  });
  // Projects whose secret this process cannot open, and until when it leaves them to others.
  const unsignableProjects = new Map<string, number>();
  // Retries this process scheduled, soonest first, and when the last claim looked: between
  // claims the loop sleeps until the next retry rather than a whole poll interval, so a retry
  // goes out on its time. Polling still finds those past the bound, and other processes' own.
  const retries: number[] = [];
  let claimedAt = Number.NEGATIVE_INFINITY;
  const noteRetry = (at: number) => {
    if (retries.length >= MAX_NOTED_RETRIES) return;
    let i = retries.length;
    while (i > 0 && retries[i - 1]! > at) i--;
    retries.splice(i, 0, at);
  };
  const sleepMs = () => {
    while (retries.length > 0 && retries[0]! <= claimedAt) retries.shift();
    const next = retries[0];
    return next === undefined ? pollIntervalMs : Math.min(pollIntervalMs, Math.max(0, next - now()));
  };

  /** Leases what is due within the limits, with each project's webhook. */
  async function claim(): Promise<Claimed[]> {
    const free = concurrency - inFlight.size;
    if (free <= 0) return [];
    const at = now();
    const busy = [...perProject].filter(([id, count]) => count >= paceOf(id)).map(([id]) => id);
    for (const [projectId, until] of unsignableProjects) {
      if (until > at) busy.push(projectId);
      else unsignableProjects.delete(projectId);
    }
    claimedAt = at;
    const token = `${workerId}:${randomUUID()}`;
    const claimed = await db.transaction().execute(async (trx) => {
      const due = await selectDueDeliveries(trx, {
        now: at,
        limit: free * 4,
        excludeProjects: busy,
        lockRows: options.lockRows,
      });
      const picked = pickWithinLimits(due, free, perProject, paceOf);
      const leased = await leaseDeliveries(trx, picked, { token, until: at + leaseMs, now: at });
      // Read once per claim rather than once per delivery.
      const webhooks = await findWebhooks(trx, [...new Set(leased.map((delivery) => delivery.project_id))]);
      return leased.map((delivery) => ({
        delivery,
        webhook: webhooks.find((webhook) => webhook.project_id === delivery.project_id),
        token,
      }));
    });
    if (claimed.length === 0) return [];
    // One barrier for the whole claim, awaited by its attempts rather than by the loop, so the
    // next claim need not wait for it.
    const served = options.settle?.() ?? Promise.resolve();
    return claimed.map((entry) => ({ ...entry, served }));
  }

  function launch(claimed: Claimed): Promise<void> {
    const { delivery } = claimed;
    perProject.set(delivery.project_id, (perProject.get(delivery.project_id) ?? 0) + 1);
    const work = attempt(claimed)
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

  async function attempt({ delivery, webhook, token, served }: Claimed): Promise<void> {
    await served;
    const startedAt = now();
    let secrets: string[];
    try {
      secrets = signingSecrets(webhook, startedAt);
      unsignable.succeeded();
    } catch (error) {
      if (!(error instanceof SecretUnavailableError)) throw error;
      // Not an attempt: nothing was sent, and the receiver is not at fault. The delivery goes
      // back at once, and this process leaves the project's deliveries alone for a while, so a
      // process started with the right FOLIO_SECRET_KEY takes them rather than race it for them.
      unsignable.failed(error);
      unsignableProjects.set(delivery.project_id, now() + UNSIGNABLE_REST_MS);
      await releaseLease(db, delivery.id, token);
      return;
    }
    const attemptsMade = delivery.attempts + 1;
    const began = performance.now();
    const result = await send(delivery, webhook, startedAt, secrets);
    const durationMs = Math.round(performance.now() - began);
    const outcome = classifyAttempt(result, {
      attemptsMade,
      now: now(),
      schedule: options.retryScheduleMs,
      random,
    });
    // Fenced by the lease: false when it expired and another claimer owns the delivery now.
    const recorded = await record({
      deliveryId: delivery.id,
      projectId: delivery.project_id,
      token,
      attempt: attemptsMade,
      startedAt,
      result,
      outcome,
    });
    if (recorded && outcome.patch.status) options.onAttempt?.(outcome.patch.status, outcome.failure);
    if (recorded) notePace(delivery.project_id, outcome.patch.status === 'succeeded');
    if (recorded && outcome.patch.status === 'pending' && typeof outcome.patch.next_attempt_at === 'number') {
      noteRetry(outcome.patch.next_attempt_at);
    }
    logAttempt({ delivery, webhook, attempt: attemptsMade, durationMs, result, outcome, recorded });
  }

  /** One line per attempt; a recorded give-up at warn, so it shows at LOG_LEVEL=warn. */
  function logAttempt(entry: {
    delivery: DeliveryWithEvent;
    webhook: WebhookRow | undefined;
    attempt: number;
    durationMs: number;
    result: SendResult;
    outcome: AttemptOutcome;
    recorded: boolean;
  }): void {
    const { delivery, attempt, outcome, recorded } = entry;
    const line = {
      delivery: delivery.id,
      webhookId: delivery.event_id,
      projectId: delivery.project_id,
      host: receiverHost(entry.webhook?.url),
      attempt,
      durationMs: entry.durationMs,
      statusCode: entry.result.statusCode,
      error: outcome.patch.last_error ?? undefined,
      reason: outcome.failure,
      status: outcome.patch.status,
      recorded,
    };
    // Only a recorded give-up is final: an unrecorded attempt's delivery belongs to another claim.
    if (recorded && outcome.patch.status === 'failed') {
      const attempts = attempt === 1 ? '1 attempt' : `${attempt} attempts`;
      options.logger?.warn(line, `webhook delivery given up after ${attempts}`);
    } else {
      options.logger?.info(line, 'webhook delivery attempt');
    }
  }

  async function send(
    delivery: DeliveryWithEvent,
    webhook: WebhookRow | undefined,
    startedAt: number,
    secrets: string[],
  ): Promise<SendResult> {
    const notSent = (error: string, failure: AttemptFailure): SendResult => ({
      error,
      failure,
      body: '',
      durationMs: 0,
    });
    if (!webhook?.url) return notSent('The project has no webhook URL', 'not_sent');
    if (webhook.disabled_at !== null)
      return notSent(`Webhook disabled: ${webhook.disabled_reason}`, 'not_sent');
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
        headersFor(delivery, startedAt, secrets),
        Math.max(1, options.timeoutMs - Math.round(performance.now() - began)),
        options.timeoutMs,
      );
    } catch (error) {
      return notSent(error instanceof Error ? error.message : String(error), lookupFailure(error));
    }
  }

  /** The secrets to sign with: none before the secret is revealed, two while one rotates out. */
  function signingSecrets(webhook: WebhookRow | undefined, startedAt: number): string[] {
    // Seed: deliveries are signed once the secret has been revealed, unsigned before.
    if (!webhook?.secret || webhook.secret_revealed_at === null) return [];
    const secrets = [options.secretBox.open(webhook.secret)];
    if (webhook.previous_secret && (webhook.previous_secret_expires_at ?? 0) > startedAt) {
      secrets.push(options.secretBox.open(webhook.previous_secret));
    }
    return secrets;
  }

  function headersFor(
    delivery: DeliveryWithEvent,
    startedAt: number,
    secrets: string[],
  ): Record<string, string> {
    const timestamp = new Date(Math.floor(startedAt / 1000) * 1000);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': options.userAgent,
      'webhook-id': delivery.event_id,
      'webhook-timestamp': String(timestamp.getTime() / 1000),
    };
    if (secrets.length > 0) {
      headers['webhook-signature'] = signatureHeader(secrets, delivery.event_id, timestamp, delivery.payload);
    }
    return headers;
  }

  async function loop(): Promise<void> {
    while (running) {
      wakeRequested = false;
      try {
        for (const claimed of await claim()) void launch(claimed);
        claims.succeeded();
      } catch (error) {
        claims.failed(error);
      }
      if (!running) break;
      if (wakeRequested) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, sleepMs());
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
      await Promise.all(claimed.map(launch));
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

/** Picks up to `free` deliveries, at most `limitOf` each project counting those already in flight. */
function pickWithinLimits(
  due: Array<{ id: string; project_id: string }>,
  free: number,
  inFlightPerProject: Map<string, number>,
  limitOf: (projectId: string) => number,
): string[] {
  const counts = new Map(inFlightPerProject);
  const picked: string[] = [];
  for (const { id, project_id } of due) {
    if (picked.length >= free) break;
    const count = counts.get(project_id) ?? 0;
    if (count >= limitOf(project_id)) continue;
    counts.set(project_id, count + 1);
    picked.push(id);
  }
  return picked;
}

/** Why the lookup before a send failed: a host that does not resolve counts as `connect`. */
function lookupFailure(error: unknown): AttemptFailure {
  if (error instanceof DeadlineError) return 'timeout';
  if (error instanceof WebhookAddressError && !error.unresolved) return 'not_sent';
  return 'connect';
}

/** The receiver's host for the log: never its path or query, which may carry a token. */
function receiverHost(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}
