import { type Kysely, PostgresAdapter, sql } from 'kysely';

// Frozen in time: migrations never import application code.
// PostgreSQL: an article's served JSON (a few KB, read for every list page that is not cached) is
// compressed with lz4 instead of pglz: a cold list page reads faster (BENCHMARKS.md, How the
// delivery path works, "Cheap cold path"), and its CPU is the database's, on the same machine as the server more often than
// not. Values already stored keep pglz until the article is written again. Servers built without
// lz4 (or before PostgreSQL 14) keep pglz.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever schema exists
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`
    do $$
    begin
      alter table articles alter column served set compression lz4;
    exception when others then
      null;
    end
    $$`.execute(db);
}
