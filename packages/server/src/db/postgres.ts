import { PostgresDialect } from 'kysely';
import pg from 'pg';

const INT8_OID = 20;

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
    types: {
      getTypeParser: (oid: number, format?: string) =>
        oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text'),
    },
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  return { dialect: new PostgresDialect({ pool }), pool };
}
