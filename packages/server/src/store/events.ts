import type { Kysely } from 'kysely';
import type { Database, EventRow, NewEventRow } from '../db/tables.ts';

/** Called inside the transaction of the change the event reports. */
export async function insertEvent(db: Kysely<Database>, row: NewEventRow): Promise<void> {
  await db.insertInto('events').values(row).execute();
}

export async function listEvents(db: Kysely<Database>, projectId: string): Promise<EventRow[]> {
  return db
    .selectFrom('events')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .execute();
}
