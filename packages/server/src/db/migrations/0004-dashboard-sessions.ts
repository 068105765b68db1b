import type { Kysely } from 'kysely';

// Frozen in time: migrations never import application code.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever schema exists
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('dashboard_sessions')
    // SHA-256 of the session id; the id itself lives only in the browser's cookie.
    .addColumn('id_hash', 'text', (col) => col.primaryKey())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    // A one-time message for the next page, sealed with a key derived from the session id.
    .addColumn('flash', 'text')
    .execute();
  await db.schema
    .createIndex('dashboard_sessions_expiry')
    .on('dashboard_sessions')
    .column('expires_at')
    .execute();
}
