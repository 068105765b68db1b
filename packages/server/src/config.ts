import path from 'node:path';
import type { SqliteSynchronous } from './db/sqlite.ts';
import { redactUrl } from './redact-url.ts';

/** Everything the server reads from its environment, parsed and checked. */
export interface Config {
  port: number;
  host: string;
  /** `postgres://…` selects PostgreSQL; undefined selects the embedded SQLite file. */
  databaseUrl: string | undefined;
  dataDir: string;
  baseUrl: string;
  adminToken: string | undefined;
  demo: boolean;
  webhookAllowPrivate: boolean;
  /** Delays before each retry after the first attempt, in milliseconds. */
  webhookRetryScheduleMs: number[];
  webhookTimeoutMs: number;
  /** Webhook deliveries in flight at once per project. */
  webhookConcurrency: number;
  /** 32 bytes that encrypt webhook secrets at rest (AES-256-GCM); undefined keeps them plain. */
  secretKey: Buffer | undefined;
  /** Bytes of ready delivery responses kept in memory; 0 turns the cache off. */
  responseCacheBytes: number;
  /** SQLite's `synchronous` in WAL mode: `full` keeps every commit through a power cut; `normal` may lose the last. */
  sqliteSynchronous: SqliteSynchronous;
  /** Take the client address from the first `X-Forwarded-For` hop (behind a reverse proxy). */
  trustProxy: boolean;
  /** Requests per window of each credential; undefined when off (the default). */
  rateLimit: Budget | undefined;
  /** Failed authentications per client address and window. */
  authFailureLimit: Budget;
  /** `redis://…`: rate-limit budgets shared by every process; undefined keeps them per process. */
  redisUrl: string | undefined;
  /** How long the changes feed can resume from a cursor, in milliseconds; older history is pruned. */
  changesRetentionMs: number;
  /** How long finished webhook deliveries (and their events and attempts) are kept, in milliseconds. */
  webhookRetentionMs: number;
  /** PostgreSQL: how long a query may go unanswered; undefined keeps the driver layer's default. */
  databaseTimeoutMs: number | undefined;
  /** The least severe log line written. */
  logLevel: LogLevel;
}

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A configuration problem: one line naming the variable. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** Requests allowed per window: `600/10s` is 600 requests in any 10-second window. */
export interface Budget {
  points: number;
  seconds: number;
}

/** The contract's default for failed authentications per client address (`FOLIO_AUTH_FAILURE_LIMIT`). */
export const DEFAULT_AUTH_FAILURE_BUDGET: Budget = { points: 30, seconds: 60 };

type Env = Record<string, string | undefined>;

// The contract bounds a server's RSS under a flood of distinct URLs; the server itself holds a
// good part of that bound before it caches anything, and the cache's accounted bytes cost more
// RSS than they count (BENCHMARKS.md, "Flood of distinct URLs"), so the default leaves room to
// spare on another machine.
export const DEFAULT_RESPONSE_CACHE_MB = 64;

// Enough to keep pace with a burst of writes to one project; see BENCHMARKS.md, "Webhooks".
export const DEFAULT_WEBHOOK_CONCURRENCY = 32;

/** The contract's default for FOLIO_CHANGES_RETENTION: 30 days. */
export const DEFAULT_CHANGES_RETENTION_MS = 30 * 86_400_000;

/** FOLIO_WEBHOOK_RETENTION's default: as long as the changes feed keeps its history. */
export const DEFAULT_WEBHOOK_RETENTION_MS = 30 * 86_400_000;

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

// The longest a Node timer waits: past it (24.8 days) one fires at once, so a timeout set longer
// failed every database query or webhook attempt on the spot rather than never.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Parses `500ms`, `5s`, `5m`, `2h`, `1d`; a bare number is seconds. */
export function parseDuration(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!match) return undefined;
  return Math.round(Number(match[1]) * DURATION_UNITS[match[2] ?? 's']!);
}

// Variables whose values are credentials: a refusal names them without printing what was set,
// since start-up errors end up in logs and terminals.
const SECRET_VARIABLES = new Set(['FOLIO_ADMIN_TOKEN', 'FOLIO_SECRET_KEY']);
const URL_VARIABLES = new Set(['DATABASE_URL', 'FOLIO_REDIS_URL']);

/** `=<value>` as a refusal shows it: a URL without its password, a secret not at all. */
function shown(name: string, raw: string): string {
  if (SECRET_VARIABLES.has(name)) return ' (value not shown)';
  if (URL_VARIABLES.has(name)) return `=${JSON.stringify(redactUrl(raw, '(not a URL)'))}`;
  return `=${JSON.stringify(raw)}`;
}

/**
 * Reads the configuration from `env`. Collects every problem before failing so an operator
 * fixes them all in one go.
 */
export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const problems: string[] = [];
  const read = <T>(name: string, fallback: T, parse: (raw: string) => T | undefined, expected: string): T => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = parse(raw);
    if (value === undefined) {
      problems.push(`${name}${shown(name, raw)} is not valid: expected ${expected}`);
      return fallback;
    }
    return value;
  };

  const port = read('PORT', 8080, parsePort, 'a port number from 0 to 65535');
  const host = read('HOST', '127.0.0.1', (raw) => raw.trim() || undefined, 'a listen address');
  const databaseUrl = read<string | undefined>(
    'DATABASE_URL',
    undefined,
    parseDatabaseUrl,
    'a postgres:// URL',
  );
  const dataDir = path.resolve(
    cwd,
    read('FOLIO_DATA_DIR', './data', (raw) => raw, 'a directory'),
  );
  const baseUrl = read(
    'FOLIO_BASE_URL',
    `http://localhost:${port}`,
    parseBaseUrl,
    'an absolute http(s) URL such as https://folio.example.com',
  );
  const adminToken = read<string | undefined>(
    'FOLIO_ADMIN_TOKEN',
    undefined,
    // Any length: the operator or a test harness chooses it. start() warns below 16 characters.
    (raw) => (/\s/.test(raw) ? undefined : raw),
    'a token without whitespace',
  );
  const demo = read('FOLIO_DEMO', true, parseBoolean, 'true or false');
  const webhookAllowPrivate = read('FOLIO_WEBHOOK_ALLOW_PRIVATE', false, parseBoolean, 'true or false');
  const webhookRetryScheduleMs = read(
    'FOLIO_WEBHOOK_RETRY_SCHEDULE',
    [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
    parseSchedule,
    'comma-separated durations such as 5s,5m,30m,2h',
  );
  const webhookTimeoutMs = read(
    'FOLIO_WEBHOOK_TIMEOUT',
    10_000,
    (raw) => {
      const ms = parseDuration(raw);
      return ms !== undefined && ms > 0 && ms <= MAX_TIMER_MS ? ms : undefined;
    },
    'a positive duration up to 24d such as 10s',
  );
  const webhookConcurrency = read(
    'FOLIO_WEBHOOK_CONCURRENCY',
    DEFAULT_WEBHOOK_CONCURRENCY,
    (raw) => (/^\d+$/.test(raw.trim()) && Number(raw) >= 1 && Number(raw) <= 1000 ? Number(raw) : undefined),
    'a whole number from 1 to 1000',
  );

  const secretKey = read<Buffer | undefined>(
    'FOLIO_SECRET_KEY',
    undefined,
    parseSecretKey,
    '32 bytes as 64 hex characters or base64 (e.g. `openssl rand -base64 32`)',
  );

  const responseCacheMb = read(
    'FOLIO_RESPONSE_CACHE_MB',
    DEFAULT_RESPONSE_CACHE_MB,
    (raw) => (/^\d+$/.test(raw.trim()) ? Number(raw.trim()) : undefined),
    'a whole number of megabytes (0 turns the response cache off)',
  );

  // Normal by default, as Folio always ran: a process crash loses nothing either way, and an
  // fsync per commit multiplies the cost of every write (BENCHMARKS.md, write figures); an
  // operator who needs commits to survive a power cut chooses `full` (README, Durability).
  const sqliteSynchronous = read<SqliteSynchronous>(
    'FOLIO_SQLITE_SYNCHRONOUS',
    'normal',
    (raw) => {
      const value = raw.trim().toLowerCase();
      return value === 'full' || value === 'normal' ? value : undefined;
    },
    'full or normal',
  );
  const trustProxy = read('FOLIO_TRUST_PROXY', false, parseBoolean, 'true or false');
  const budget = 'requests per window such as 600/10s, 100/1s or 5000/1m';
  const rateLimit = read<Budget | 'off'>('FOLIO_RATE_LIMIT', 'off', parseRateLimit, `off or ${budget}`);
  const authFailureLimit = read('FOLIO_AUTH_FAILURE_LIMIT', DEFAULT_AUTH_FAILURE_BUDGET, parseBudget, budget);
  const redisUrl = read<string | undefined>(
    'FOLIO_REDIS_URL',
    undefined,
    parseRedisUrl,
    'a redis:// or rediss:// URL',
  );
  const retention = 'a duration of at least 1s such as 30d, 12h, 15m or 2s';
  const changesRetentionMs = read(
    'FOLIO_CHANGES_RETENTION',
    DEFAULT_CHANGES_RETENTION_MS,
    parseRetention,
    retention,
  );
  const webhookRetentionMs = read(
    'FOLIO_WEBHOOK_RETENTION',
    DEFAULT_WEBHOOK_RETENTION_MS,
    parseRetention,
    retention,
  );

  const databaseTimeoutMs = read<number | undefined>(
    'FOLIO_DATABASE_TIMEOUT',
    undefined,
    (raw) => {
      const ms = parseDuration(raw);
      return ms !== undefined && ms >= 100 && ms <= MAX_TIMER_MS ? ms : undefined;
    },
    'a duration from 100ms to 24d such as 15s',
  );

  const logLevel = read<LogLevel>(
    'LOG_LEVEL',
    'info',
    (raw) => LOG_LEVELS.find((level) => level === raw.trim().toLowerCase()),
    LOG_LEVELS.join(', '),
  );

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port,
    host,
    databaseUrl,
    dataDir,
    baseUrl,
    adminToken,
    demo,
    webhookAllowPrivate,
    webhookRetryScheduleMs,
    webhookTimeoutMs,
    webhookConcurrency,
    secretKey,
    responseCacheBytes: responseCacheMb * 1024 * 1024,
    sqliteSynchronous,
    trustProxy,
    rateLimit: rateLimit === 'off' ? undefined : rateLimit,
    authFailureLimit,
    redisUrl,
    changesRetentionMs,
    webhookRetentionMs,
    databaseTimeoutMs,
    logLevel,
  };
}

/** `600/10s`: a whole number of requests ≥ 1 per a whole window of `s`, `m` or `h`. */
export function parseBudget(raw: string): Budget | undefined {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*(s|m|h)\s*$/.exec(raw);
  if (!match) return undefined;
  const points = Number(match[1]);
  const seconds = Number(match[2]) * { s: 1, m: 60, h: 3600 }[match[3] as 's' | 'm' | 'h'];
  return points >= 1 && seconds >= 1 && Number.isSafeInteger(points) ? { points, seconds } : undefined;
}

function parseRetention(raw: string): number | undefined {
  const ms = parseDuration(raw);
  return ms !== undefined && ms >= 1000 ? ms : undefined;
}

function parseRedisUrl(raw: string): string | undefined {
  try {
    const url = new URL(raw.trim());
    return url.protocol === 'redis:' || url.protocol === 'rediss:' ? raw.trim() : undefined;
  } catch {
    return undefined;
  }
}

function parseRateLimit(raw: string): Budget | 'off' | undefined {
  return raw.trim().toLowerCase() === 'off' ? 'off' : parseBudget(raw);
}

function parseSecretKey(raw: string): Buffer | undefined {
  const text = raw.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  return key.length === 32 ? key : undefined;
}

function parsePort(raw: string): number | undefined {
  if (!/^\d+$/.test(raw)) return undefined;
  const port = Number(raw);
  return port <= 65535 ? port : undefined;
}

function parseBoolean(raw: string): boolean | undefined {
  const value = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(value)) return true;
  if (['false', '0', 'no', 'off'].includes(value)) return false;
  return undefined;
}

function parseDatabaseUrl(raw: string): string | undefined {
  return /^postgres(ql)?:\/\//.test(raw) ? raw : undefined;
}

function parseBaseUrl(raw: string): string | undefined {
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return undefined;
  }
}

function parseSchedule(raw: string): number[] | undefined {
  const delays = raw.split(',').map((part) => parseDuration(part));
  return delays.every((ms): ms is number => ms !== undefined) ? delays : undefined;
}
