import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database, NewProjectRow, ProjectRow, ProjectUpdate } from '../db/tables.ts';

export async function insertProject(db: Kysely<Database>, row: NewProjectRow): Promise<ProjectRow> {
  return db.insertInto('projects').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findProject(db: Kysely<Database>, id: string): Promise<ProjectRow | undefined> {
  return db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listProjects(db: Kysely<Database>): Promise<ProjectRow[]> {
  return inListOrder(db).execute();
}

/** One page of `listProjects`, for a list too long to read whole (the dashboard's). */
export async function listProjectsPage(
  db: Kysely<Database>,
  page: { limit: number; offset: number },
): Promise<ProjectRow[]> {
  return inListOrder(db).limit(page.limit).offset(page.offset).execute();
}

// Oldest first, the id breaking ties: the whole list and its pages must agree on one order.
function inListOrder(db: Kysely<Database>) {
  return db.selectFrom('projects').selectAll().orderBy('created_at', 'asc').orderBy('id', 'asc');
}

export async function countProjects(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('projects')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function updateProject(
  db: Kysely<Database>,
  id: string,
  patch: ProjectUpdate,
): Promise<ProjectRow | undefined> {
  return db.updateTable('projects').set(patch).where('id', '=', id).returningAll().executeTakeFirst();
}

/** The projects whose articles are not all rewritten for their current site settings. */
export async function listProjectsRewriting(db: Kysely<Database>): Promise<string[]> {
  const rows = await db.selectFrom('projects').select('id').where('rewrite_after', 'is not', null).execute();
  return rows.map((row) => row.id);
}

/**
 * Marks every article of the project as serving settings older than its own (`rewrite_after`
 * ''), and makes its cached answers stale.
 */
export async function markForRewrite(trx: Transaction<Database>, id: string): Promise<void> {
  await trx
    .updateTable('projects')
    .set({ rewrite_after: '', content_version: sql<number>`content_version + 1` })
    .where('id', '=', id)
    .execute();
}

/** Records how far the rewrite got: null once every article is rewritten. */
export async function setRewriteAfter(
  trx: Transaction<Database>,
  id: string,
  after: string | null,
): Promise<void> {
  await trx.updateTable('projects').set({ rewrite_after: after }).where('id', '=', id).execute();
}
