import { buildApp } from './app.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { openDatabase } from './db/connect.ts';
import { migrateToLatest } from './db/migrate.ts';
import { createLogger } from './logger.ts';
import { resolveAdminCredential } from './services/admin-auth.ts';
import { seedDemoProject } from './services/demo.ts';
import type { ServiceDeps } from './services/deps.ts';

// How long a shutdown may wait for requests in flight before the process exits anyway.
const SHUTDOWN_GRACE_MS = 10_000;
// Where the example site runs (`npm run example`); the demo project's sitemap URLs point there.
const DEMO_WEBSITE_URL = 'http://localhost:3000';

/** Reads the environment, prepares the database, listens, and shuts down cleanly on a signal. */
export async function start(config: Config): Promise<void> {
  const logger = createLogger();
  const database = await openDatabase(config);
  const applied = await migrateToLatest(database.db, database.dialect);
  logger.info({ database: database.dialect, location: database.location, applied }, 'database ready');

  const deps: ServiceDeps = { db: database.db, now: Date.now };
  const adminCredential = await resolveAdminCredential(deps, config.adminToken);
  const demo = config.demo ? await seedDemoProject(deps, DEMO_WEBSITE_URL) : undefined;

  const app = await buildApp({ db: database.db, baseUrl: config.baseUrl, adminCredential, logger });
  await app.listen({ port: config.port, host: config.host });

  printBanner(config, adminCredential.generatedToken, demo);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS);
    force.unref();
    await app.close();
    await database.db.destroy();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

function printBanner(
  config: Config,
  adminToken: string | undefined,
  demo: { projectId: string; contentKey: string } | undefined,
): void {
  const lines = [
    '',
    `  Folio is running at ${config.baseUrl}`,
    `  OpenAPI: ${config.baseUrl}/public/v1/openapi.json`,
  ];
  if (adminToken) {
    lines.push('', '  Admin token (shown once; only its hash is stored):', `    ${adminToken}`);
  }
  if (demo) {
    lines.push(
      '',
      `  Demo project id: ${demo.projectId}`,
      `  Demo content key (shown once): ${demo.contentKey}`,
      '',
      '  Try it:',
      `    curl -H 'Authorization: Bearer ${demo.contentKey}' '${config.baseUrl}/api/v1/projects/${demo.projectId}/content?limit=3'`,
    );
  }
  lines.push('');
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (import.meta.main) {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems) process.stderr.write(`folio: ${problem}\n`);
    process.exit(2);
  }
  start(config).catch((error: unknown) => {
    process.stderr.write(
      `folio: could not start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  });
}
