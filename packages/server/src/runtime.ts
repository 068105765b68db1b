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

/** Runs `shutdown` once on SIGTERM or SIGINT, then exits; a stuck shutdown is cut short. */
export function onSignals(logger: Logger, shutdown: () => Promise<void>, graceMs: number): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), graceMs + 5_000);
    force.unref();
    await shutdown();
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
