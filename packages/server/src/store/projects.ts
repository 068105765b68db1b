import type { Kysely } from 'kysely';
import type { Database, NewProjectRow, ProjectRow, ProjectUpdate } from '../db/tables.ts';

export async function insertProject(db: Kysely<Database>, row: NewProjectRow): Promise<ProjectRow> {
  return db.insertInto('projects').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findProject(db: Kysely<Database>, id: string): Promise<ProjectRow | undefined> {
  return db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listProjects(db: Kysely<Database>): Promise<ProjectRow[]> {
  return db.selectFrom('projects').selectAll().orderBy('created_at', 'asc').orderBy('id', 'asc').execute();
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
