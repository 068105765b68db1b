import { type Kysely, PostgresAdapter, sql } from 'kysely';

// Frozen in time: migrations never import application code.
// PostgreSQL only: what lets several server processes keep cached answers without asking the
// database on every request (see db/postgres-change-feed.ts).
// - Every statement that writes what delivery answers are built from (projects, articles, and a
//   content key's identity or revocation) notifies the channel `folio:<schema>` when it commits.
//   A key's last_used_at alone does not: it changes nothing served.
// - `folio_instances` holds each serving process's lease: a writer waits for the processes
//   listed there to acknowledge its commit, or for their lease to run out.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever schema exists
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await db.schema
    .createTable('folio_instances')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('lease_until', 'timestamptz', (column) => column.notNull())
    .execute();
  await sql`
    create function folio_notify_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify('folio:' || tg_table_schema, 'c');
      return null;
    end
    $$`.execute(db);
  for (const table of ['projects', 'articles']) {
    await sql`
      create trigger folio_changed after insert or update or delete or truncate on ${sql.table(table)}
      for each statement execute function folio_notify_change()`.execute(db);
  }
  await sql`
    create trigger folio_changed
    after insert or delete or truncate or update of id, project_id, prefix, key_hash, revoked_at
    on content_keys for each statement execute function folio_notify_change()`.execute(db);
}
