import { PostgresDialect } from 'kysely';
import pg from 'pg';
import { currentPatience } from './patience.ts';

const INT8_OID = 20;
// A database that does not answer a connection attempt (a black-holed network, a failover in
// progress) fails the request that needed it after this long, rather than holding it forever.
const CONNECT_TIMEOUT_MS = 5_000;
/** How long a query may go unanswered when `FOLIO_DATABASE_TIMEOUT` is not set. */
export const DEFAULT_QUERY_TIMEOUT_MS = 15_000;
/** For `queryTimeoutMs`: no deadline (migrations, which may rightly take long). */
export const NO_QUERY_DEADLINE = 0;
const READ_TIMEOUT_MESSAGE = 'Query read timeout';
// pg-pool's own words for a wait for a connection that ran out, which `isDatabaseUnavailable` knows.
const ACQUIRE_TIMEOUT_MESSAGE = 'timeout exceeded when trying to connect';

/** A client whose connection attempt fails after `CONNECT_TIMEOUT_MS`, whatever the pool waits. */
class ConnectBoundedClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super({
      ...(typeof config === 'string' ? { connectionString: config } : config),
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
  }
}

/** The Kysely dialect and the pool under it, for the one query that bypasses Kysely. */
export interface PostgresConnection {
  dialect: PostgresDialect;
  pool: pg.Pool;
}

/**
 * The production database. Timestamps are stored as epoch milliseconds in `bigint` columns;
 * they fit a JavaScript number exactly, so `int8` is parsed as a number rather than a string.
 */
export function connectPostgres(
  connectionString: string,
  max = 10,
  queryTimeoutMs = DEFAULT_QUERY_TIMEOUT_MS,
): PostgresConnection {
  const pool = new pg.Pool({
    connectionString,
    max,
    // Waiting for a pooled connection is not the database being out of reach: under a burst of
    // writes every connection may stay busy for longer than opening one may take. A request
    // waits for one as long as it would wait for a query's answer; opening a connection keeps
    // its own short bound (ConnectBoundedClient), so an unreachable database still fails fast.
    connectionTimeoutMillis:
      queryTimeoutMs === NO_QUERY_DEADLINE ? 0 : Math.max(queryTimeoutMs, CONNECT_TIMEOUT_MS),
    Client: ConnectBoundedClient,
    // A connection that stays open but carries no answer (a frozen network, a stopped server
    // process) would hold its request, and then every request, forever: the query fails instead.
    query_timeout: queryTimeoutMs === NO_QUERY_DEADLINE ? undefined : queryTimeoutMs,
    // Finds a connection whose peer vanished without a word (a dead host) while it sits idle.
    keepAlive: true,
    // A command whose last query is done exits at once, not once its idle connections time
    // out (`folio migrate` waited 10 s); a server stays up on its listener and timers.
    allowExitOnIdle: true,
    types: {
      getTypeParser: (oid: number, format?: string) =>
        oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text'),
    },
  });
  // A client losing its connection emits 'error', and an 'error' event without a listener ends
  // the process. The pool listens to its idle clients only; a client checked out between two
  // queries (inside a transaction) has no listener, so every client gets one for its lifetime.
  // The query in progress fails on its own, and the pool drops the broken client on release.
  pool.on('error', () => {});
  const patient = queryTimeoutMs !== NO_QUERY_DEADLINE;
  pool.on('connect', (client) => {
    client.on('error', () => {});
    boundQueries(client, patient ? queryTimeoutMs : undefined);
  });
  if (patient) sharePatience(pool, queryTimeoutMs);
  return { dialect: new PostgresDialect({ pool }), pool };
}

type ConnectCallback = (error: Error | undefined, client?: pg.PoolClient, done?: () => void) => void;

/**
 * In a patience scope (`db/patience.ts`), waiting for a connection spends the scope's patience,
 * and getting one restores it. A connection that arrives after the wait gave up goes back.
 */
function sharePatience(pool: pg.Pool, boundMs: number): void {
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  const acquire = (): Promise<pg.PoolClient> => {
    const patience = currentPatience();
    if (patience === undefined) return connect();
    const left = patience.left(boundMs);
    if (left <= 0) return Promise.reject(new Error(ACQUIRE_TIMEOUT_MESSAGE));
    return new Promise((resolve, reject) => {
      let late = false;
      const timer = setTimeout(() => {
        late = true;
        reject(new Error(ACQUIRE_TIMEOUT_MESSAGE));
      }, Math.ceil(left));
      connect().then(
        (client) => {
          clearTimeout(timer);
          if (late) return client.release();
          patience.progress();
          resolve(client);
        },
        (error: unknown) => {
          clearTimeout(timer);
          if (!late) reject(error);
        },
      );
    });
  };
  // `pool.query` asks with a callback; Kysely awaits the promise.
  (pool as unknown as { connect: (callback?: ConnectCallback) => unknown }).connect = (callback) => {
    if (!callback) return acquire();
    acquire().then(
      (client) => callback(undefined, client, () => client.release()),
      (error: Error) => callback(error),
    );
    return undefined;
  };
}

/**
 * A query that timed out is still the connection's query in progress: the driver queues the
 * next one behind it, to time out in turn, and a transaction it was in would stay open, since
 * the ROLLBACK queued behind it times out unsent, for the next request on this connection to
 * run inside. The connection is dropped instead: the server rolls back what it held, and the
 * next request gets a fresh connection, or a prompt 503 while the database stays out of reach.
 *
 * With `boundMs`, a query in a patience scope waits only as long as the scope's patience lasts,
 * and its answer restores it.
 */
function boundQueries(client: pg.PoolClient, boundMs: number | undefined): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const drop = (error: unknown) => {
    if ((error as Error | undefined)?.message !== READ_TIMEOUT_MESSAGE) return;
    (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
  };
  (client as unknown as { query: typeof query }).query = (...args) => {
    const patience = boundMs === undefined ? undefined : currentPatience();
    // The pool's own `pool.query` passes a callback; Kysely awaits the promise.
    const callback = args.at(-1);
    if (patience !== undefined) {
      const left = Math.ceil(patience.left(boundMs!));
      if (left <= 0) {
        // Never sent, and the connection goes all the same: what is refused may be the ROLLBACK
        // of a transaction that must not stay open on it for the next request.
        const error = new Error(READ_TIMEOUT_MESSAGE);
        drop(error);
        if (typeof callback === 'function') return void callback(error);
        return Promise.reject(error);
      }
      args[0] = withReadTimeout(args[0], left);
    }
    const settled = (error: unknown) => {
      if (error) drop(error);
      else patience?.progress();
    };
    if (typeof callback === 'function') {
      args[args.length - 1] = (error: unknown, result: unknown) => {
        settled(error);
        callback(error, result);
      };
    }
    const result = query(...args);
    if (result instanceof Promise) result.then(() => settled(undefined), settled);
    return result;
  };
}

/** `query`'s first argument (SQL or a query config) with its own read timeout. */
function withReadTimeout(text: unknown, timeoutMs: number): unknown {
  if (typeof text === 'string') return { text, query_timeout: timeoutMs };
  // A submittable (a cursor) carries its own settings.
  if (typeof text !== 'object' || text === null || 'submit' in text) return text;
  return { ...text, query_timeout: timeoutMs };
}
