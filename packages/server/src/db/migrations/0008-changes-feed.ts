import { type Kysely, sql } from 'kysely';

// Frozen in time: migrations never import application code.
// The changes feed (contract, Part 2): each write that changes what a content key sees takes
// the project's next change number and stamps the article with it; a deleted article that was
// served leaves a tombstone (its id, last served slug and number, never its body) until the
// retention prunes it. Published articles get numbers here in publication order, so the first
// sync after the upgrade serves them all.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever schema exists
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('projects')
    .addColumn('change_seq', 'bigint', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('articles').addColumn('change_seq', 'bigint').execute();
  await db.schema.alterTable('articles').addColumn('served_slug', 'text').execute();
  await db.schema
    .createTable('article_tombstones')
    .addColumn('project_id', 'text', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('id', 'text', (col) => col.notNull())
    .addColumn('slug', 'text', (col) => col.notNull())
    .addColumn('change_seq', 'bigint', (col) => col.notNull())
    .addColumn('deleted_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('article_tombstones_pk', ['project_id', 'id'])
    .execute();
  await db.schema
    .createIndex('article_tombstones_seq')
    .on('article_tombstones')
    .columns(['project_id', 'change_seq'])
    .execute();
  await db.schema
    .createIndex('article_tombstones_age')
    .on('article_tombstones')
    .column('deleted_at')
    .execute();
  await db.schema
    .createIndex('articles_change_seq')
    .on('articles')
    .columns(['project_id', 'change_seq'])
    .where(sql.ref('change_seq'), 'is not', null)
    .execute();

  await sql`
    update articles set served_slug = slug, change_seq = (
      select numbered.seq from (
        select project_id, id,
          row_number() over (partition by project_id order by published_at, id) as seq
        from articles where published = 1
      ) numbered
      where numbered.project_id = articles.project_id and numbered.id = articles.id
    )
    where published = 1`.execute(db);
  await sql`
    update projects set change_seq = (
      select count(*) from articles where articles.project_id = projects.id and published = 1
    )`.execute(db);
}
