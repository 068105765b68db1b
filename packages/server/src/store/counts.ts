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

/** Published articles, all projects. */
export async function countPublishedArticles(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('articles')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('published', '=', 1)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
