import { type Kysely, sql } from 'kysely';

// Frozen in time: migrations never import application code.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever schema exists
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (col) => col.primaryKey())
    .addColumn('value', 'text', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('projects')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('website_url', 'text')
    .addColumn('articles_path', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('content_version', 'bigint', (col) => col.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('content_keys')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('project_id', 'text', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('prefix', 'text', (col) => col.notNull())
    .addColumn('key_hash', 'text', (col) => col.notNull().unique())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('last_used_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('content_keys_project')
    .on('content_keys')
    .columns(['project_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('articles')
    .addColumn('project_id', 'text', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('id', 'text', (col) => col.notNull())
    .addColumn('slug', 'text', (col) => col.notNull())
    .addColumn('title', 'text', (col) => col.notNull())
    .addColumn('blocks', 'text', (col) => col.notNull())
    .addColumn('seo', 'text', (col) => col.notNull())
    .addColumn('related', 'text', (col) => col.notNull())
    .addColumn('published', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('published_at', 'bigint')
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('articles_pk', ['project_id', 'id'])
    .addUniqueConstraint('articles_slug_unique', ['project_id', 'slug'])
    .execute();
  // Serves the delivery list order, its count and the sitemap: published only, newest first.
  await db.schema
    .createIndex('articles_published_order')
    .on('articles')
    .columns(['project_id', 'published_at desc', 'id desc'])
    .where(sql.ref('published'), '=', 1)
    .execute();

  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('project_id', 'text', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('type', 'text', (col) => col.notNull())
    .addColumn('payload', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('events_project').on('events').columns(['project_id', 'created_at']).execute();
}
