import type { ArticleInput, Block, Project } from '@folio/schema';
import type { FastifyBaseLogger, FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Kysely } from 'kysely';
import pino from 'pino';
import { type AppOptions, buildApp } from '../app.ts';
import type { ChangeFeed } from '../db/change-feed.ts';
import type { DialectName } from '../db/connect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import type { Database } from '../db/tables.ts';
import type { AnswerSlotsOptions } from '../http/answer-slots.ts';
import type { Metrics } from '../http/metrics.ts';
import type { RateLimits } from '../http/rate-limits.ts';
import { resolveAdminCredential } from '../services/admin-auth.ts';
import type { WebhookPolicy } from '../services/deps.ts';
import { createDispatcher, type Dispatcher, type DispatcherOptions } from '../webhooks/dispatcher.ts';
import { createSecretBox } from '../webhooks/secret-box.ts';
import { createTestDatabase, type TestDatabase } from './databases.ts';

export const TEST_BASE_URL = 'http://folio.test';
export const ADMIN_TOKEN = 'test-admin-token-0123456789';
/** Where a test's clock starts. */
export const START_TIME = Date.parse('2026-11-20T10:00:00.000Z');

/** A clock the test moves by hand. */
export interface TestClock {
  now: () => number;
  advance: (ms: number) => void;
}

export function createClock(start = START_TIME): TestClock {
  let time = start;
  return {
    now: () => time,
    advance: (ms) => {
      time += ms;
    },
  };
}

export interface TestApp {
  app: FastifyInstance;
  db: Kysely<Database>;
  database: TestDatabase;
  clock: TestClock;
  /** A dispatcher on the same database and clock; not started: drive it with `runOnce()`. */
  dispatcher: Dispatcher;
  /** What the app learns of commits made anywhere (PostgreSQL; immediate on SQLite). */
  changeFeed: ChangeFeed;
  /** How often the app has read the database's change token. */
  tokenReads(): number;
  /** A request with the admin token. */
  admin(method: InjectOptions['method'], url: string, body?: unknown): Promise<LightMyRequestResponse>;
  /** A delivery request with a content key. */
  deliver(key: string, url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /**
   * A request over a real socket, which reaches the fast path (`inject` enters behind it): the
   * app listens on 127.0.0.1 on first use.
   */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  createProject(fields?: {
    name?: string;
    websiteUrl?: string | null;
    articlesPath?: string;
  }): Promise<Project>;
  /** A content key of the project, or a preview key. */
  createKey(projectId: string, kind?: 'content' | 'preview'): Promise<string>;
  /** PUTs an article and fails the test unless it was accepted. */
  putArticle(projectId: string, id: string, input: ArticleInput): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** A fresh database, migrated, and the app on it, driven through `inject`. */
export interface TestAppOptions {
  baseUrl?: string;
  /** Where the clock starts; webhook tests start at the real time so signatures are fresh. */
  clockStart?: number;
  /** Webhook policy; tests allow private addresses so a receiver on 127.0.0.1 works. */
  webhooks?: Partial<WebhookPolicy>;
  dispatcher?: Partial<DispatcherOptions>;
  /** The response cache's bound; the server's default when not given. */
  responseCacheBytes?: number;
  /** Rate-limit budgets; by default those of a server with FOLIO_RATE_LIMIT unset. */
  rateLimits?: RateLimits;
  trustProxy?: boolean;
  metrics?: Metrics;
  /** FOLIO_CHANGES_RETENTION in milliseconds; the server's default when not given. */
  changesRetentionMs?: number;
  /** FOLIO_WEBHOOK_RETENTION in milliseconds; the server's default when not given. */
  webhookRetentionMs?: number;
  /** Answers made at once; by default from the heap, as a server's. */
  answerSlots?: AnswerSlotsOptions;
  /** Where the app logs (see `captureLog`); silent when not given. */
  logger?: FastifyBaseLogger;
}

/** A short retry schedule; with `random` fixed at 0 there is no jitter in tests. */
export const TEST_RETRY_SCHEDULE = [1_000, 10_000, 60_000];

export async function createTestApp(dialect: DialectName, options: TestAppOptions = {}): Promise<TestApp> {
  const database = await createTestDatabase(dialect);
  await migrateToLatest(database.db, dialect);
  const clock = createClock(options.clockStart);
  // As a server process runs: on PostgreSQL, following commits made anywhere.
  const changeFeed = await database.follow({ serving: true });
  if (dialect === 'postgres') await trusted(changeFeed);
  let tokenReads = 0;
  const webhooks: WebhookPolicy = {
    allowPrivate: true,
    secretBox: createSecretBox(undefined),
    ...options.webhooks,
  };
  const dispatcher = createDispatcher({
    db: database.db,
    lockRows: dialect === 'postgres',
    now: clock.now,
    random: () => 0,
    retryScheduleMs: TEST_RETRY_SCHEDULE,
    timeoutMs: 2_000,
    allowPrivate: webhooks.allowPrivate,
    secretBox: webhooks.secretBox,
    userAgent: 'Folio-Webhooks/test',
    settle: changeFeed.settle,
    ...(options.metrics ? { onAttempt: options.metrics.webhookAttempt } : {}),
    ...options.dispatcher,
  });
  const adminCredential = await resolveAdminCredential({ db: database.db, now: clock.now }, ADMIN_TOKEN);
  const app = await buildApp({
    db: database.db,
    baseUrl: options.baseUrl ?? TEST_BASE_URL,
    adminCredential,
    now: clock.now,
    webhooks,
    changeToken: () => {
      tokenReads++;
      return database.changeToken();
    },
    changeFeed,
    sharedDatabaseWait: dialect === 'postgres',
    ...(options.responseCacheBytes === undefined ? {} : { responseCacheBytes: options.responseCacheBytes }),
    ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.trustProxy ? { trustProxy: true } : {}),
    ...(options.changesRetentionMs === undefined ? {} : { changesRetentionMs: options.changesRetentionMs }),
    ...(options.webhookRetentionMs === undefined ? {} : { webhookRetentionMs: options.webhookRetentionMs }),
    ...(options.answerSlots ? { answerSlots: options.answerSlots } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  let origin: Promise<string> | undefined;

  const admin: TestApp['admin'] = (method, url, body) =>
    app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      ...(body === undefined ? {} : { payload: body as object }),
    });

  const expectStatus = (response: LightMyRequestResponse, statuses: number[], what: string) => {
    if (!statuses.includes(response.statusCode)) {
      throw new Error(`${what} answered ${response.statusCode}: ${response.body}`);
    }
    return response;
  };

  return {
    app,
    db: database.db,
    database,
    clock,
    dispatcher,
    changeFeed,
    tokenReads: () => tokenReads,
    admin,
    deliver: (key, url, headers = {}) =>
      app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}`, ...headers } }),
    async fetch(path, init) {
      origin ??= app.listen({ port: 0, host: '127.0.0.1' });
      return fetch(`${await origin}${path}`, init);
    },
    async createProject(fields = {}) {
      const response = expectStatus(
        await admin('POST', '/admin/v1/projects', { name: 'Test site', ...fields }),
        [201],
        'create project',
      );
      return response.json().data as Project;
    },
    async createKey(projectId, kind = 'content') {
      const response = expectStatus(
        await admin('POST', `/admin/v1/projects/${projectId}/keys`, { name: 'test key', kind }),
        [201],
        'create key',
      );
      return response.json().data.key as string;
    },
    async putArticle(projectId, id, input) {
      return expectStatus(
        await admin('PUT', `/admin/v1/projects/${projectId}/articles/${id}`, input),
        [200, 201],
        `put article ${id}`,
      );
    },
    async close() {
      await dispatcher.stop(0);
      await app.close();
      await database.close();
    },
  };
}

/**
 * Another server process on `t`'s database: its own connection, cache and admin token. With
 * `following`, it also follows commits (the change feed) and keeps cached answers as a server does;
 * with `logger`, it logs there.
 */
export async function buildSecondApp(
  t: TestApp,
  following = false,
  logger?: AppOptions['logger'],
): Promise<FastifyInstance> {
  const options: AppOptions = {
    db: t.database.connectAgain(),
    baseUrl: 'http://second.test',
    adminCredential: await resolveAdminCredential({ db: t.db, now: t.clock.now }, 'second-admin-token-0123'),
    now: t.clock.now,
    ...(logger ? { logger } : {}),
  };
  if (!following) return buildApp(options);
  const changeFeed = await t.database.follow({ serving: true });
  return buildApp({ ...options, changeToken: t.database.changeToken, changeFeed });
}

let counter = 0;

/** A valid article body; each call gets a unique slug unless one is given. */
export function newArticle(overrides: Partial<ArticleInput> = {}): ArticleInput {
  counter += 1;
  return {
    slug: `article-${counter}`,
    title: `Article ${counter}`,
    blocks: [paragraph(`The body of article ${counter}.`)],
    ...overrides,
  };
}

export function paragraph(text: string): Block {
  return { type: 'paragraph', content: [{ text }] };
}

/**
 * Waits until `feed` holds its lease, so cached answers do not depend on when a test starts;
 * resolves with the token it then trusts.
 */
export async function trusted(feed: ChangeFeed, ms = 10_000): Promise<string> {
  const until = Date.now() + ms;
  for (let token = feed.known(); ; token = feed.known()) {
    if (token !== undefined) return token;
    if (Date.now() > until) throw new Error(`the change feed did not confirm its lease within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A log line as written: pino's fields and the line's own. */
export type LogLine = Record<string, unknown> & { level: number; msg: string };

/** pino's numeric levels. */
export const LEVELS = { debug: 20, info: 30, warn: 40, error: 50 } as const;

/** A logger at `level` whose lines the test reads back, parsed, as they are written. */
export function captureLog(level: 'debug' | 'info' = 'info'): {
  logger: FastifyBaseLogger;
  lines: LogLine[];
} {
  const lines: LogLine[] = [];
  const logger = pino({ level }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}
