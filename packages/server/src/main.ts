import { buildApp } from './app.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { createRateLimits, warnLockedOut } from './http/rate-limits.ts';
import { loadConfigOrExit, onSignals, openRuntime } from './runtime.ts';
import { resolveAdminCredential } from './services/admin-auth.ts';
import { seedDemoProject } from './services/demo.ts';
import type { ServiceDeps } from './services/deps.ts';
import { FOLIO_VERSION } from './version.ts';

// How long a shutdown waits for requests and webhook deliveries in flight.
const SHUTDOWN_GRACE_MS = 10_000;
// Where the example site runs (`npm run example`); the demo project's sitemap URLs point there.
const DEMO_WEBSITE_URL = 'http://localhost:3000';
// Below this many characters an admin token is accepted with a warning.
const SHORT_ADMIN_TOKEN = 16;

/** The server: HTTP APIs and the webhook dispatcher in one process. */
export async function start(config: Config): Promise<void> {
  const { logger, metrics, database, changeFeed, webhooks, dispatcher, scheduler } = await openRuntime(
    config,
    true,
  );
  const deps: ServiceDeps = { db: database.db, now: Date.now, webhooks };
  const adminCredential = await resolveAdminCredential(deps, config.adminToken);
  if (config.adminToken !== undefined && config.adminToken.length < SHORT_ADMIN_TOKEN) {
    logger.warn(
      `FOLIO_ADMIN_TOKEN has ${config.adminToken.length} characters: a token that short can be guessed; use ${SHORT_ADMIN_TOKEN} or more (unset, one is generated)`,
    );
  }
  const demo = config.demo ? await seedDemoProject(deps, DEMO_WEBSITE_URL) : undefined;

  const app = await buildApp({
    db: database.db,
    baseUrl: config.baseUrl,
    adminCredential,
    logger,
    webhooks,
    onCommit: () => dispatcher.wake(),
    responseCacheBytes: config.responseCacheBytes,
    changeToken: database.changeToken,
    changeFeed,
    trustProxy: config.trustProxy,
    changesRetentionMs: config.changesRetentionMs,
    webhookRetentionMs: config.webhookRetentionMs,
    sharedDatabaseWait: database.dialect === 'postgres',
    drainOnClose: true,
    metrics,
    rateLimits: await createRateLimits({
      perCredential: config.rateLimit,
      authFailures: config.authFailureLimit,
      redisUrl: config.redisUrl,
      warn: (message) => logger.warn(message),
      lockedOut: (address, seconds) => warnLockedOut(logger, address, seconds),
    }),
  });
  await app.ready();
  app.warmValidators();
  await app.listen({ port: config.port, host: config.host }).catch((error: NodeJS.ErrnoException) => {
    throw new ConfigError([
      `HOST=${JSON.stringify(config.host)} PORT=${config.port} cannot be listened on: ${error.message}`,
    ]);
  });
  dispatcher.start();
  scheduler.start();
  // The banner is for a person; this line is for whoever reads the log after an upgrade.
  logger.info(
    { version: FOLIO_VERSION, database: database.dialect, node: process.version, url: config.baseUrl },
    'Folio started',
  );
  // Before the banner: whoever reads "Folio is running" may stop it at once, and a SIGTERM that
  // finds no handler ends the process without its shutdown.
  onSignals(
    logger,
    async (step) => {
      // Side by side, not one after the other: draining kept-alive connections takes up to their
      // keep-alive timeout, and deliveries in flight should not wait for it, nor it for them,
      // within the one grace the forced exit allows.
      await Promise.all([
        step('http server', app.close()),
        step('publishing scheduler', scheduler.stop()),
        step('webhook deliveries', dispatcher.stop(SHUTDOWN_GRACE_MS)),
      ]);
      await step('change feed', changeFeed.close());
      await step('database connections', database.db.destroy());
    },
    SHUTDOWN_GRACE_MS,
  );
  printBanner(config, adminCredential.generatedToken, demo);
}

function printBanner(
  config: Config,
  adminToken: string | undefined,
  demo: { projectId: string; contentKey: string } | undefined,
): void {
  const lines = [
    '',
    `  Folio is running at ${config.baseUrl}`,
    `  API reference: ${config.baseUrl}/docs (OpenAPI: ${config.baseUrl}/public/v1/openapi.json)`,
  ];
  if (adminToken) {
    lines.push('', '  Admin token (shown once; only its hash is stored):', `    ${adminToken}`);
  }
  lines.push('', `  Dashboard: ${config.baseUrl}/dashboard`, ...signInLines(config, adminToken));
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

/** Which admin token opens the dashboard; after the first start, how to replace a lost one. */
function signInLines(config: Config, generatedToken: string | undefined): string[] {
  if (generatedToken) return ['    Sign in with the admin token above.'];
  if (config.adminToken) return ['    Sign in with the admin token set in FOLIO_ADMIN_TOKEN.'];
  return [
    '    Sign in with the admin token printed at the first start (only its hash is stored).',
    '    Lost it? Run `folio admin-token reset` (or set FOLIO_ADMIN_TOKEN) and restart.',
  ];
}

if (import.meta.main) {
  const config = await loadConfigOrExit(() => loadConfig());
  start(config).catch((error: unknown) => {
    process.stderr.write(
      `folio: could not start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  });
}
