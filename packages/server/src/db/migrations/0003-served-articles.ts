import type { Kysely } from 'kysely';

// Frozen in time: migrations never import application code. Rows written before this
// migration have no served JSON yet; readers compute it for them until their next write.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever schema exists
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('articles').addColumn('served', 'text').execute();
}
