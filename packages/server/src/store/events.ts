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

/**
 * Deletes up to `batch` events created before `before` whose delivery, if any, is finished and
 * was last touched before then too; their deliveries and attempts go with them (foreign keys).
 * A pending delivery keeps its event however old it is. Returns how many events went.
 */
export async function pruneEvents(db: Kysely<Database>, before: number, batch: number): Promise<number> {
  const result = await db
    .deleteFrom('events')
    .where('id', 'in', (query) =>
      query
        .selectFrom('events as e')
        .select('e.id')
        .where('e.created_at', '<', before)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('webhook_deliveries as d')
                .select('d.id')
                .whereRef('d.event_id', '=', 'e.id')
                .where((d) => d.or([d('d.status', '=', 'pending'), d('d.updated_at', '>=', before)])),
            ),
          ),
        )
        .limit(batch),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
