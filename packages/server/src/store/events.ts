import type { Kysely } from 'kysely';
import type { Database, EventRow, NewEventRow } from '../db/tables.ts';
import { chunks } from './chunks.ts';

/** Called inside the transaction of the change the events report. */
export async function insertEvents(db: Kysely<Database>, rows: NewEventRow[]): Promise<void> {
  for (const chunk of chunks(rows)) await db.insertInto('events').values(chunk).execute();
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
