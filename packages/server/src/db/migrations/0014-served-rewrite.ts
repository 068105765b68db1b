import type { Kysely } from 'kysely';

// Frozen in time: migrations never import application code.
// A change of a project's site settings rewrites every article's served JSON, a batch per
// transaction so that other writers (on SQLite, every tenant's) get turns in between. The
// project remembers how far the rewrite got: null when every article serves the current
// settings, '' when none does yet, else the last article id rewritten. A process that stops
// half-way leaves it set, and the next one finishes the rewrite.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever schema exists
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('projects').addColumn('rewrite_after', 'text').execute();
}
