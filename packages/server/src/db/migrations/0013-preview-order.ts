import { type Kysely, sql } from 'kysely';

// Frozen in time: migrations never import application code.
// The preview perspective's order (never-published first by the updatedAt they show, then
// publishedAt descending, then id) had no index: each preview list page, and each preview
// article's default related links, sorted the whole project, on SQLite with the event loop
// held. The expressions are written as `inPreviewOrder` in store/articles.ts writes them, so
// both planners match the index to its ORDER BY.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever schema exists
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create index articles_preview_order on articles (
      project_id,
      (published_at is null) desc,
      published_at desc,
      (case when published_at is null then coalesce(draft_updated_at, updated_at) end) desc,
      id desc
    )`.execute(db);
}
