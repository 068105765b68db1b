import { type Kysely, sql } from 'kysely';

// Frozen in time: migrations never import application code.
// The editorial loop (contract, Part 2: drafts, preview keys and links, scheduled publishing).
// - An article's draft is stored beside its served fields, as the JSON of what was ingested;
//   its slug has a column of its own so that slug conflicts are an indexed lookup.
// - publish_at / unpublish_at hold a schedule; partial indexes keep the scheduler's idle poll
//   an index probe that finds nothing.
// - preview_seq numbers every change the preview perspective sees (drafts included), from the
//   project's change counter; preview_tombstones tell preview replicas of deleted articles.
// - A key's kind: "content" reads what is published, "preview" reads drafts too.
// - Preview tokens are stored as hashes, like keys: deleting an article deletes them.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever schema exists
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('articles').addColumn('draft', 'text').execute();
  await db.schema.alterTable('articles').addColumn('draft_slug', 'text').execute();
  await db.schema.alterTable('articles').addColumn('draft_updated_at', 'bigint').execute();
  await db.schema.alterTable('articles').addColumn('publish_at', 'bigint').execute();
  await db.schema.alterTable('articles').addColumn('unpublish_at', 'bigint').execute();
  await db.schema.alterTable('articles').addColumn('preview_seq', 'bigint').execute();
  await db.schema
    .createIndex('articles_draft_slug')
    .on('articles')
    .columns(['project_id', 'draft_slug'])
    .where(sql.ref('draft_slug'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('articles_publish_at')
    .on('articles')
    .column('publish_at')
    .where(sql.ref('publish_at'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('articles_unpublish_at')
    .on('articles')
    .column('unpublish_at')
    .where(sql.ref('unpublish_at'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('articles_preview_seq')
    .on('articles')
    .columns(['project_id', 'preview_seq'])
    .where(sql.ref('preview_seq'), 'is not', null)
    .execute();

  await db.schema
    .createTable('preview_tombstones')
    .addColumn('project_id', 'text', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('id', 'text', (col) => col.notNull())
    .addColumn('slug', 'text', (col) => col.notNull())
    .addColumn('preview_seq', 'bigint', (col) => col.notNull())
    .addColumn('deleted_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('preview_tombstones_pk', ['project_id', 'id'])
    .execute();
  await db.schema
    .createIndex('preview_tombstones_seq')
    .on('preview_tombstones')
    .columns(['project_id', 'preview_seq'])
    .execute();
  await db.schema
    .createIndex('preview_tombstones_age')
    .on('preview_tombstones')
    .column('deleted_at')
    .execute();

  await db.schema
    .alterTable('content_keys')
    .addColumn('kind', 'text', (col) => col.notNull().defaultTo('content'))
    .execute();
  await db.schema.alterTable('projects').addColumn('preview_url', 'text').execute();

  await db.schema
    .createTable('preview_tokens')
    .addColumn('token_hash', 'text', (col) => col.primaryKey())
    .addColumn('project_id', 'text', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('article_id', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('preview_tokens_article')
    .on('preview_tokens')
    .columns(['project_id', 'article_id'])
    .execute();
  await db.schema.createIndex('preview_tokens_age').on('preview_tokens').column('expires_at').execute();

  // Every article is in the preview perspective: numbered after what the project has, in the
  // order of its last change, so a first preview sync serves them all.
  await sql`
    update articles set preview_seq = (
      select projects.change_seq + numbered.n from (
        select project_id, id, row_number() over (partition by project_id order by updated_at, id) as n
        from articles
      ) numbered
      join projects on projects.id = numbered.project_id
      where numbered.project_id = articles.project_id and numbered.id = articles.id
    )`.execute(db);
  await sql`
    update projects set change_seq = change_seq + (
      select count(*) from articles where articles.project_id = projects.id
    )`.execute(db);
}
