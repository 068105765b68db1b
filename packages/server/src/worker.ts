import { type Config, loadConfig } from './config.ts';
import { loadConfigOrExit, onSignals, openRuntime } from './runtime.ts';

// How long a shutdown waits for webhook deliveries in flight.
const SHUTDOWN_GRACE_MS = 10_000;

/**
 * Only the webhook dispatcher and the publishing scheduler, for operators who run them apart
 * from the HTTP servers.
 */
export async function startWorker(config: Config): Promise<void> {
  const { logger, database, changeFeed, dispatcher, scheduler } = await openRuntime(config, false);
  dispatcher.start();
  scheduler.start();
  // Before saying it runs, as `folio start` does before its banner (see main.ts).
  onSignals(
    logger,
    async (step) => {
      await step('publishing scheduler', scheduler.stop());
      await step('webhook deliveries', dispatcher.stop(SHUTDOWN_GRACE_MS));
      await step('change feed', changeFeed.close());
      await step('database connections', database.db.destroy());
    },
    SHUTDOWN_GRACE_MS,
  );
  logger.info('worker running: webhook deliveries and publishing schedules');
}

if (import.meta.main) {
  const config = await loadConfigOrExit(() => loadConfig());
  startWorker(config).catch((error: unknown) => {
    process.stderr.write(
      `folio worker: could not start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  });
}
