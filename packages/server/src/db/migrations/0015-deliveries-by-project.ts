import { type Kysely, sql } from 'kysely';

// Frozen in time: migrations never import application code.
// A claim that skips a project (it has all the deliveries in flight it may) reads the other
// projects' pending deliveries project by project, oldest due first, instead of walking the
// due index past the skipped project's backlog.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever schema exists
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_project_due')
    .on('webhook_deliveries')
    .columns(['project_id', 'next_attempt_at', 'id'])
    .where(sql.ref('status'), '=', 'pending')
    .execute();
}
