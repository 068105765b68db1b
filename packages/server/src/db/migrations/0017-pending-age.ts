import { type Kysely, sql } from 'kysely';

// Frozen in time: migrations never import application code.
// /metrics reads the age of the oldest pending delivery at every scrape. No delivery index is in
// creation order among pending rows alone (the log's index holds every status, project first),
// so without this one the read sorts the whole backlog, on SQLite with the event loop held,
// and a backlog is when the figure is wanted.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever schema exists
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_pending_age')
    .on('webhook_deliveries')
    .column('created_at')
    .where(sql.ref('status'), '=', 'pending')
    .execute();
}
