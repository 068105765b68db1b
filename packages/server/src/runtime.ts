import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { ChangeFeed } from './db/change-feed.ts';
import { type DatabaseHandle, openDatabase } from './db/connect.ts';
import { createMetrics, type Metrics } from './http/metrics.ts';
import { createLogger } from './logger.ts';
import type { WebhookPolicy } from './services/deps.ts';
import { createScheduler, type Scheduler } from './services/schedules.ts';
import { FOLIO_VERSION } from './version.ts';
import { createDispatcher, type Dispatcher } from './webhooks/dispatcher.ts';
import { createSecretBox } from './webhooks/secret-box.ts';

export const WEBHOOK_USER_AGENT = `Folio-Webhooks/${FOLIO_VERSION}`;

/**
 * What a server or worker process runs on: a migrated database, what it learns of other
 * processes' commits, the webhook policy, the dispatcher and the publishing scheduler.
 */
export interface Runtime {
  logger: Logger;
  /** Shared by the dispatcher and the HTTP server, so /metrics shows both. */
  metrics: Metrics;
  database: DatabaseHandle;
  changeFeed: ChangeFeed;
  webhooks: WebhookPolicy;
  dispatcher: Dispatcher;
  scheduler: Scheduler;
}

/** `serving`: the process answers HTTP requests from cached bytes (a server, not a worker). */
export async function openRuntime(config: Config, serving: boolean): Promise<Runtime> {
  const logger = createLogger(config.logLevel);
  const database = await openDatabase(config);
  const applied = await database.migrate();
  logger.info({ database: database.dialect, location: database.location, applied }, 'database ready');
  const changeFeed = await database.follow({ serving, warn: (message) => logger.warn(message) });
  const webhooks: WebhookPolicy = {
    allowPrivate: config.webhookAllowPrivate,
    secretBox: createSecretBox(config.secretKey),
  };
  const metrics = createMetrics();
  const dispatcher = createDispatcher({
    db: database.db,
    lockRows: database.dialect === 'postgres',
    now: Date.now,
    retryScheduleMs: config.webhookRetryScheduleMs,
    timeoutMs: config.webhookTimeoutMs,
    perProjectConcurrency: config.webhookConcurrency,
    allowPrivate: webhooks.allowPrivate,
    secretBox: webhooks.secretBox,
    userAgent: WEBHOOK_USER_AGENT,
    logger: logger.child({ component: 'webhooks' }),
    settle: changeFeed.settle,
    onAttempt: metrics.webhookAttempt,
  });
  // A schedule's events wake the dispatcher as a request's do.
  const scheduler = createScheduler(
    { db: database.db, now: Date.now, webhooks, onCommit: () => dispatcher.wake() },
    { logger: logger.child({ component: 'scheduler' }) },
  );
  return { logger, metrics, database, changeFeed, webhooks, dispatcher, scheduler };
}

/**
 * Names a step of a shutdown: one still pending when the shutdown is cut short is named in the
 * line that says so.
 */
export type ShutdownStep = <T>(name: string, work: Promise<T>) => Promise<T>;

// How long past its grace a shutdown may still run before the process exits without it.
const FORCE_AFTER_GRACE_MS = 5_000;

/** Runs `shutdown` once on SIGTERM or SIGINT, then exits; a stuck shutdown is cut short. */
export function onSignals(
  logger: Logger,
  shutdown: (step: ShutdownStep) => Promise<void>,
  graceMs: number,
): void {
  let stopping = false;
  const pending = new Set<string>();
  const step: ShutdownStep = (name, work) => {
    pending.add(name);
    return work.finally(() => pending.delete(name));
  };
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const forceMs = graceMs + FORCE_AFTER_GRACE_MS;
    const force = setTimeout(() => {
      logger.error(
        { signal, afterMs: forceMs, pending: [...pending] },
        'shutting down did not finish within its grace; exiting without it',
      );
      process.exit(1);
    }, forceMs);
    force.unref();
    await shutdown(step);
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/** Reads the configuration or exits with one line per problem, each naming its variable. */
export async function loadConfigOrExit(load: () => Config): Promise<Config> {
  const { ConfigError } = await import('./config.ts');
  try {
    return load();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems) process.stderr.write(`folio: ${problem}\n`);
    process.exit(2);
  }
}
