import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';

/** Webhook deliveries waiting for an attempt, all projects. */
export async function countPendingDeliveries(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * When the oldest pending delivery was created, all projects; undefined when none is pending.
 * Read in creation order on the pending deliveries' own index, so it stops at the first row
 * however long the backlog is.
 */
export async function findOldestPendingCreatedAt(db: Kysely<Database>): Promise<number | undefined> {
  const row = await oldestPendingQuery(db).executeTakeFirst();
  return row === undefined ? undefined : Number(row.created_at);
}

/** The query of `findOldestPendingCreatedAt`, for the test that holds it to its index. */
export function oldestPendingQuery(db: Kysely<Database>) {
  return db
    .selectFrom('webhook_deliveries')
    .select('created_at')
    .where('status', '=', 'pending')
    .orderBy('created_at')
    .limit(1);
}

/** Published articles, all projects. */
export async function countPublishedArticles(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('articles')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('published', '=', 1)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
