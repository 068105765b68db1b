import type { Kysely } from 'kysely';

// Frozen in time: migrations never import application code.
// The management API and the dashboard list a project's articles most recently changed first;
// without an index in that order each page sorted the whole project (seconds at 50,000
// articles, on SQLite with the event loop held).
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever schema exists
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('articles_admin_order')
    .on('articles')
    .columns(['project_id', 'updated_at desc', 'id'])
    .execute();
}
