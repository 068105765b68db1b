import { type Kysely, sql } from 'kysely';

// Frozen in time: migrations never import application code.
// The published-order index also carries slug and updated_at, so the sitemap reads only the
// index: on SQLite, reaching columns stored after an article's blocks means walking the row's
// overflow pages, which made most of what a large sitemap cost.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever schema exists
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('articles_published_order').execute();
  await db.schema
    .createIndex('articles_published_order')
    .on('articles')
    .columns(['project_id', 'published_at desc', 'id desc', 'slug', 'updated_at'])
    .where(sql.ref('published'), '=', 1)
    .execute();
}
