import { type Kysely, sql } from 'kysely';

/**
 * PostgreSQL's change token: the WAL insert position of the cluster. Every commit that
 * changed anything inserted its commit record before it became visible, so the position has
 * moved past any commit that finished before the token is read; unrelated activity moves it
 * too, which only costs cache hits, never correctness. One trivial query, so a batch of
 * requests shares it (see `http/fast-path.ts`).
 *
 * Not available on a standby (recovery): there the token read fails and every request takes
 * the full path.
 */
export function postgresChangeToken<T>(db: Kysely<T>): () => Promise<string> {
  return async () => {
    const { rows } = await sql<{ lsn: string }>`select pg_current_wal_insert_lsn()::text as lsn`.execute(db);
    return rows[0]!.lsn;
  };
}
