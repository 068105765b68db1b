import { type Kysely, PostgresAdapter, sql } from 'kysely';

// Frozen in time: migrations never import application code.
// PostgreSQL only: article ids compare as bytes, as SQLite compares them. Ties in every article
// order (articles published together share publishedAt) are broken by id, and a column follows
// its database's collation: on a database created with a locale (en_US.UTF-8, the default of
// many installs), `Z B b A a` came out where SQLite says `b a Z B A`, so the two databases
// listed, paged and picked related articles differently. Indexes on the column are rebuilt.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever schema exists
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`alter table articles alter column id type text collate "C"`.execute(db);
}
