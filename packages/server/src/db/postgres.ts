import { PostgresDialect } from 'kysely';
import pg from 'pg';

const INT8_OID = 20;
// A database that does not answer a connection attempt (a black-holed network, a failover in
// progress) fails the request that needed it after this long, rather than holding it forever.
const CONNECT_TIMEOUT_MS = 5_000;

/** The Kysely dialect and the pool under it, for the one query that bypasses Kysely. */
export interface PostgresConnection {
  dialect: PostgresDialect;
  pool: pg.Pool;
}

/**
 * The production database. Timestamps are stored as epoch milliseconds in `bigint` columns;
 * they fit a JavaScript number exactly, so `int8` is parsed as a number rather than a string.
 */
export function connectPostgres(connectionString: string, max = 10): PostgresConnection {
  const pool = new pg.Pool({
    connectionString,
    max,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // Finds a connection whose peer vanished without a word (a dead host) while it sits idle.
    keepAlive: true,
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
  pool.on('connect', (client) => client.on('error', () => {}));
  return { dialect: new PostgresDialect({ pool }), pool };
}
