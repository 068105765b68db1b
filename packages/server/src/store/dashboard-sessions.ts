import type { Kysely } from 'kysely';
import type { DashboardSessionRow, Database } from '../db/tables.ts';

export async function insertDashboardSession(db: Kysely<Database>, row: DashboardSessionRow): Promise<void> {
  await db.insertInto('dashboard_sessions').values(row).execute();
}

/** The session with this id hash, unless it has expired. */
export async function findLiveDashboardSession(
  db: Kysely<Database>,
  idHash: string,
  now: number,
): Promise<DashboardSessionRow | undefined> {
  return db
    .selectFrom('dashboard_sessions')
    .selectAll()
    .where('id_hash', '=', idHash)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

export async function setDashboardSessionFlash(
  db: Kysely<Database>,
  idHash: string,
  flash: string | null,
): Promise<void> {
  await db.updateTable('dashboard_sessions').set({ flash }).where('id_hash', '=', idHash).execute();
}

export async function deleteDashboardSession(db: Kysely<Database>, idHash: string): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where('id_hash', '=', idHash).execute();
}

export async function deleteExpiredDashboardSessions(db: Kysely<Database>, now: number): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where('expires_at', '<=', now).execute();
}
