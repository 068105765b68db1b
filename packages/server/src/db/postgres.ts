import { PostgresDialect } from 'kysely';
import pg from 'pg';

const INT8_OID = 20;

/**
 * The production database. Timestamps are stored as epoch milliseconds in `bigint` columns;
 * they fit a JavaScript number exactly, so `int8` is parsed as a number rather than a string.
 */
export function createPostgresDialect(connectionString: string, max = 10): PostgresDialect {
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
  return new PostgresDialect({ pool });
}
