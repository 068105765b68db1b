import type { Kysely } from 'kysely';

// Frozen in time: migrations never import application code.
// The webhook history is pruned by age (FOLIO_WEBHOOK_RETENTION): events are found by when they
// were created, and deleting one deletes its delivery through the foreign key, which without an
// index on `event_id` reads every delivery for each event deleted.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever schema exists
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('events_age').on('events').column('created_at').execute();
  await db.schema
    .createIndex('webhook_deliveries_event')
    .on('webhook_deliveries')
    .column('event_id')
    .execute();
}
