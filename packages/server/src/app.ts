import type http from 'node:http';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { blocksJsonSchema } from '@folio/schema';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import {
  DEFAULT_AUTH_FAILURE_BUDGET,
  DEFAULT_CHANGES_RETENTION_MS,
  DEFAULT_RESPONSE_CACHE_MB,
  DEFAULT_WEBHOOK_RETENTION_MS,
} from './config.ts';
import { dashboardRoutes } from './dashboard/routes.ts';
import type { ChangeFeed, ChangeToken } from './db/change-feed.ts';
import { createPatience, type Patience, withPatience } from './db/patience.ts';
import type { Database } from './db/tables.ts';
import {
  type AnswerSlots,
  type AnswerSlotsOptions,
  createAnswerSlots,
  defaultAnswerSlots,
} from './http/answer-slots.ts';
import { installConditionalGets } from './http/caching.ts';
import { handleClientError, handleFrameworkError, installErrorHandling } from './http/error-handler.ts';
import { createFastPath, ROUTER_OPTIONS } from './http/fast-path.ts';
import { createGroupedReport } from './http/grouped-report.ts';
import { installJsonBodyParser, JSON_BODY_LIMIT } from './http/json-body.ts';
import { createMetrics, type Metrics } from './http/metrics.ts';
import { createMetricsHistory } from './http/metrics-history.ts';
import { createRateLimits, type RateLimits, warnLockedOut } from './http/rate-limits.ts';
import { createRequestAccounting, routeLabel } from './http/request-accounting.ts';
import { RequestLines } from './http/request-log.ts';
import { createResponseCache } from './http/response-cache.ts';
import { createHttpServer } from './http/server.ts';
import { createValidatorCompiler } from './http/validation.ts';
import { adminRoutes } from './routes/admin/index.ts';
import { deliveryRoutes } from './routes/delivery/content.ts';
import { DELIVERY_ROUTES } from './routes/delivery/route-table.ts';
import { healthRoutes } from './routes/health.ts';
import { metricsRoutes } from './routes/metrics.ts';
import { docsRoutes } from './routes/public/docs.ts';
import { selfContained } from './routes/public/openapi-document.ts';
import { withSharedHeaders } from './routes/public/openapi-headers.ts';
import { openapiWebhooks, WEBHOOK_SIGNATURE_SCHEME } from './routes/public/openapi-webhooks.ts';
import { publicRoutes } from './routes/public/public.ts';
import type { AdminCredential } from './services/admin-auth.ts';
import { openChangeHistory } from './services/change-history.ts';
import { createChangeWatch } from './services/change-watch.ts';
import { pruneChangeHistory } from './services/changes.ts';
import type { ServiceDeps, WebhookPolicy } from './services/deps.ts';
import { createKeyChecks } from './services/key-checks.ts';
import { createListingIndex } from './services/listing-index.ts';
import { runPeriodically } from './services/periodic.ts';
import { startPruning } from './services/retention.ts';
import { finishRewrites } from './services/served-articles.ts';
import { serverCounts } from './services/server-counts.ts';
import { pruneWebhookHistory } from './services/webhooks.ts';
import { FOLIO_VERSION } from './version.ts';
import { createSecretBox } from './webhooks/secret-box.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Requests answered by the fast path since start, for operators and tests. */
    fastPathHits(): number;
    /** What the response cache holds: accounted bytes and entries. */
    responseCacheUse(): { bytes: number; entries: number };
    /** Answers made at once, bounded (see `http/answer-slots.ts`). */
    answerSlots: AnswerSlots;
    /** Compiles what refusing a body needs, once the routes are ready (see `http/validation.ts`). */
    warmValidators(): void;
  }
}

// How often requests turned away for want of a turn are told, at most.
const TURNED_AWAY_REPORT_MS = 60_000;
const DEFAULT_RESPONSE_CACHE_BYTES = DEFAULT_RESPONSE_CACHE_MB * 1024 * 1024;
// How often a server looks for a settings rewrite that a stopped process left half-done.
const REWRITE_CHECK_MS = 60_000;

export interface AppOptions {
  db: Kysely<Database>;
  baseUrl: string;
  adminCredential: AdminCredential;
  /** Epoch milliseconds; injectable so tests control time. */
  now?: () => number;
  /** How webhook URLs are checked and secrets kept; by default private addresses are refused. */
  webhooks?: WebhookPolicy;
  /** Called after each committed write that may have queued deliveries (wakes the dispatcher). */
  onCommit?: () => void;
  /** Bytes of ready responses kept in memory; 0 turns the response cache off. */
  responseCacheBytes?: number;
  /** Answers made at once, and how long a request waits for a turn; by default from the heap. */
  answerSlots?: AnswerSlotsOptions;
  /**
   * The database's change token. With it, a content key's check is reused and cached delivery
   * answers for it are sent before the framework runs, until anything is written anywhere.
   */
  changeToken?: ChangeToken;
  /**
   * What this process learns of commits made anywhere: with it, a cached answer needs no
   * database read while the feed holds its lease, and a write answers only once every server
   * process serves it.
   */
  changeFeed?: ChangeFeed;
  /** A pino logger; none means silent (tests). */
  logger?: FastifyBaseLogger;
  /** `request.ip` is the first `X-Forwarded-For` hop, not the socket's (FOLIO_TRUST_PROXY). */
  trustProxy?: boolean;
  /** The server's metrics, shared with its webhook dispatcher; a registry of its own if none. */
  metrics?: Metrics;
  /**
   * Rate-limit budgets, closed with the app; by default only failed authentications are
   * limited, in this process.
   */
  rateLimits?: RateLimits;
  /** FOLIO_CHANGES_RETENTION in milliseconds: how far back the changes feed can resume. */
  changesRetentionMs?: number;
  /** FOLIO_WEBHOOK_RETENTION in milliseconds: how long finished deliveries are kept. */
  webhookRetentionMs?: number;
  /**
   * A request's waits on the database share one bound (`db/patience.ts`): for PostgreSQL, whose
   * pool and queries honour it. SQLite has no such waits, and the scope costs its requests.
   */
  sharedDatabaseWait?: boolean;
  /**
   * On close, let idle keep-alive connections run out (Node's keep-alive timeout) rather than
   * cutting them: a request that arrives on one meanwhile is answered, with Connection: close,
   * instead of meeting a reset. A server's shutdown; tests close at once.
   */
  drainOnClose?: boolean;
}

/** Builds the HTTP application. It never listens and never reads the environment. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const deps: ServiceDeps = {
    db: options.db,
    now: options.now ?? Date.now,
    webhooks: options.webhooks ?? { allowPrivate: false, secretBox: createSecretBox(undefined) },
    ...(options.onCommit ? { onCommit: options.onCommit } : {}),
  };
  const blocksSchema = blocksJsonSchema(options.baseUrl);

  const cache = createResponseCache(options.responseCacheBytes ?? DEFAULT_RESPONSE_CACHE_BYTES);
  const feed = options.changeFeed;
  const watch = options.changeToken ? createChangeWatch(options.changeToken, feed?.known) : undefined;
  const keys = createKeyChecks(deps, watch);
  const metrics = options.metrics ?? createMetrics();
  metrics.scrapeFrom(serverCounts(deps));
  const history = createMetricsHistory({ totals: metrics.totals, now: deps.now });
  const limits =
    options.rateLimits ??
    (await createRateLimits({
      perCredential: undefined,
      authFailures: DEFAULT_AUTH_FAILURE_BUDGET,
      lockedOut: (address, seconds) => options.logger && warnLockedOut(options.logger, address, seconds),
    }));
  const accounting = createRequestAccounting({
    metrics,
    limits,
    trustProxy: options.trustProxy ?? false,
    log: options.logger,
  });
  const requestLines = new RequestLines(routeLabel);
  // Without a cache nothing is ever ready.
  const fastPath =
    watch && cache.maxBytes > 0
      ? createFastPath({
          routes: DELIVERY_ROUTES,
          cache,
          watch,
          keys,
          accounting: accounting.fast,
          now: deps.now,
        })
      : undefined;

  const app = Fastify({
    // Always Folio's own server (http/server.ts), so Fastify's timeout options do not apply:
    // Node's keep-alive, and a request bound that covers the body as well as the headers.
    serverFactory: (handler: http.RequestListener) =>
      createHttpServer(
        fastPath ? (request, response) => fastPath.serve(request, response, handler) : handler,
        undefined,
        { drainOnClose: options.drainOnClose ?? false, refused: accounting.refusedBeforeRouting },
      ),
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    logController: requestLines,
    genReqId: accounting.requestId,
    bodyLimit: JSON_BODY_LIMIT,
    trustProxy: options.trustProxy ?? false,
    routerOptions: ROUTER_OPTIONS,
    frameworkErrors: (error, request, reply) => {
      accounting.refusedByRouter(request, reply, requestLines);
      handleFrameworkError(error, request, reply);
    },
    clientErrorHandler: (error, socket) => handleClientError(error, socket, accounting.refusedBeforeRouting),
    // A request read from a busy connection while the server closes is answered in full, with
    // Connection: close, rather than with Fastify's 503, whose body is not in the contract's
    // shape: the process answers until its connections are done either way.
    return503OnClosing: false,
    forceCloseConnections: options.drainOnClose ? false : 'idle',
  }).withTypeProvider<TypeBoxTypeProvider>();

  history.start();
  app.addHook('onClose', async () => history.stop());
  const changesRetentionMs = options.changesRetentionMs ?? DEFAULT_CHANGES_RETENTION_MS;
  const changeHistory = await openChangeHistory(deps);
  const webhookRetentionMs = options.webhookRetentionMs ?? DEFAULT_WEBHOOK_RETENTION_MS;
  const pruners = [
    startPruning(
      changesRetentionMs,
      () => pruneChangeHistory(deps, changesRetentionMs),
      (error) => app.log.warn({ err: error }, 'pruning the changes feed history failed; it is retried'),
    ),
    startPruning(
      webhookRetentionMs,
      () => pruneWebhookHistory(deps, webhookRetentionMs),
      (error) => app.log.warn({ err: error }, 'pruning the webhook log failed; it is retried'),
    ),
    // A site settings change that a stopped process left half-done is finished at start, and
    // by any server within a minute.
    runPeriodically(
      REWRITE_CHECK_MS,
      () =>
        finishRewrites(deps, {
          finished: (projectId, articles) =>
            app.log.info({ projectId, articles }, 'finished rewriting articles for new site settings'),
          failed: (projectId, error) =>
            app.log.warn(
              { err: error, projectId },
              'rewriting articles for new site settings failed; it is retried',
            ),
        }),
      (error) =>
        app.log.warn(
          { err: error },
          'checking for unfinished rewrites of articles for new site settings failed; it is retried',
        ),
      { atOnce: true },
    ),
  ];
  // The budgets' Redis connection, if any, goes with the app.
  app.addHook('onClose', async () => limits.close());
  app.addHook('onClose', async () => {
    await Promise.all(pruners.map((pruner) => pruner.stop()));
  });
  app.decorate('fastPathHits', () => fastPath?.hits ?? 0);
  app.decorate('responseCacheUse', () => ({ bytes: cache.bytes, entries: cache.entries }));
  const slots = options.answerSlots ?? defaultAnswerSlots();
  // A flood turned away is a line a minute, with how many, not a warn line per request.
  const turnedAway = createGroupedReport<'busy'>(TURNED_AWAY_REPORT_MS, (_, count) =>
    app.log.warn(
      { turnedAway: count, slots: slots.slots },
      'requests turned away: as many answers were being made as this process makes at once',
    ),
  );
  app.addHook('onClose', async () => turnedAway.stop());
  const answerSlots = createAnswerSlots(slots, () => turnedAway.add('busy'));
  app.decorate('answerSlots', answerSlots);
  metrics.answerSlotsFrom(answerSlots.use);
  const validatorCompiler = createValidatorCompiler([blocksSchema]);
  app.setValidatorCompiler(validatorCompiler);
  app.decorate('warmValidators', validatorCompiler.warm);
  installJsonBodyParser(app);
  installErrorHandling(app);
  installConditionalGets(app);
  if (options.sharedDatabaseWait) shareDatabaseWait(app);
  accounting.install(app, requestLines);
  if (feed) settleWrites(app, feed);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Folio',
        version: FOLIO_VERSION,
        description: 'Content delivery API, public resources and management API of a Folio server.',
      },
      servers: [{ url: options.baseUrl }],
      webhooks: openapiWebhooks(),
      components: {
        securitySchemes: {
          contentKey: {
            type: 'http',
            scheme: 'bearer',
            description: 'A content key of the project (folio_ck_…): reads what is published',
          },
          previewKey: {
            type: 'http',
            scheme: 'bearer',
            description:
              'A preview key of the project (folio_pk_…): reads the preview perspective, drafts included',
          },
          previewToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'A preview link’s token (folio_pt_…): reads one article by slug, for an hour',
          },
          adminToken: { type: 'http', scheme: 'bearer', description: 'The admin token (FOLIO_ADMIN_TOKEN)' },
          webhookSignature: WEBHOOK_SIGNATURE_SCHEME,
        },
      },
    },
    transform: ({ schema, url, route }) => ({
      schema: withSharedHeaders(
        url.startsWith('/admin/') ? { ...schema, security: [{ adminToken: [] }] } : schema,
        url,
        route.method,
      ),
      url,
    }),
    transformObject: (documentObject) =>
      selfContained(
        (documentObject as { openapiObject: Record<string, unknown> }).openapiObject,
        blocksSchema,
      ),
  });

  await app.register(healthRoutes(options.db));
  await app.register(publicRoutes({ blocksSchema, cache }));
  await app.register(docsRoutes(cache));
  await app.register(
    deliveryRoutes(
      { ...deps, listing: createListingIndex(), changesRetentionMs, changeHistory },
      cache,
      keys,
      accounting,
      metrics,
    ),
  );
  await app.register(adminRoutes(deps, options.adminCredential, blocksSchema, accounting));
  await app.register(metricsRoutes(metrics, options.adminCredential));
  await app.register(
    dashboardRoutes({
      deps,
      credential: options.adminCredential,
      baseUrl: options.baseUrl,
      lastHour: history.lastHour,
    }),
  );
  return app;
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A request that may have written is answered only once every server process serves what it
 * wrote: its client may next ask any of them. A refused request (4xx) wrote nothing, and must
 * not cost the database a barrier: unauthenticated clients could otherwise send it barriers at
 * will. A 5xx may have failed after its commit, so it settles too.
 */
/**
 * A request's waits on the database share one bound (see `db/patience.ts`), from its first hook
 * on (delivery requests look their key up there); entered again once the body is read, since
 * what follows the body stream's events runs outside the scope.
 */
function shareDatabaseWait(app: FastifyInstance): void {
  const patiences = new WeakMap<FastifyRequest, Patience>();
  app.addHook('onRequest', (request, _reply, done) => {
    const patience = createPatience();
    patiences.set(request, patience);
    withPatience(done, patience);
  });
  app.addHook('preValidation', (request, _reply, done) => withPatience(done, patiences.get(request)));
}

function settleWrites(app: FastifyInstance, feed: ChangeFeed): void {
  // A callback hook: reads, every answer of the full path, pass on without a promise each.
  app.addHook('onSend', (request, reply, payload, done) => {
    // Refused, or the database away: nothing was acknowledged, and a barrier would not get
    // through to a database that is away anyway.
    const unacknowledged = (reply.statusCode >= 400 && reply.statusCode < 500) || reply.statusCode === 503;
    if (READS.has(request.method) || unacknowledged) {
      done(null, payload);
      return;
    }
    feed.settle().then(() => done(null, payload), done);
  });
}
