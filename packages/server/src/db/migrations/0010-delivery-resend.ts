import type { Kysely } from 'kysely';

// Frozen in time: migrations never import application code.
// A manual retry of a delivery whose attempt is still in flight is remembered here rather than
// by taking the attempt's lease away: the attempt then records its outcome as every attempt
// does, and the delivery is sent again as soon as it has.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever schema exists
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').addColumn('resend_requested_at', 'bigint').execute();
}
