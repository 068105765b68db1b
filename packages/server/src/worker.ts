import { type Config, loadConfig } from './config.ts';
import { loadConfigOrExit, onSignals, openRuntime } from './runtime.ts';

// How long a shutdown waits for webhook deliveries in flight.
const SHUTDOWN_GRACE_MS = 10_000;

/** Only the webhook dispatcher, for operators who run delivery apart from the HTTP servers. */
export async function startWorker(config: Config): Promise<void> {
  const { logger, database, changeFeed, dispatcher } = await openRuntime(config, false);
  dispatcher.start();
  logger.info('webhook worker running');
  onSignals(
    logger,
    async () => {
      await dispatcher.stop(SHUTDOWN_GRACE_MS);
      await changeFeed.close();
      await database.db.destroy();
    },
    SHUTDOWN_GRACE_MS,
  );
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
