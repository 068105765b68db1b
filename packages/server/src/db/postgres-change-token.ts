import type pg from 'pg';
import { withPatience } from './patience.ts';

/**
 * PostgreSQL's change token: the WAL insert position of the cluster. Every commit that
 * changed anything inserted its commit record before it became visible, so the position has
 * moved past any commit that finished before the token is read; unrelated activity moves it
 * too, which only costs cache hits, never correctness. One trivial query, so a batch of
 * requests shares it (see `services/change-watch.ts`). It goes to the pool directly: it is read
 * for every batch of requests, and Kysely's layers were a large share of its CPU time. A named
 * (prepared) statement: each connection parses and plans it once, not on every read.
 *
 * Not available on a standby (recovery): there the token read fails and every request takes
 * the full path.
 */
export function postgresChangeToken(pool: pg.Pool): () => Promise<string> {
  const query = {
    name: 'folio_change_token',
    text: 'select pg_current_wal_insert_lsn()::text',
    rowMode: 'array' as const,
  };
  // Its own patience scope: waiting for a connection and for the answer share one bound.
  return () =>
    withPatience(async () => {
      const { rows } = await pool.query<[string]>(query);
      return rows[0]![0];
    });
}
