import type { DatabaseSync } from 'node:sqlite';
import { type Kysely, PostgresAdapter, sql } from 'kysely';
import type { Database } from '../db/tables.ts';
import { findSetting } from './settings.ts';

export const CHANGE_HISTORY_SETTING = 'change_history';

/**
 * Where the database lives, as far as a restore changes it. On PostgreSQL, the OIDs of the
 * database and of its settings table: a dump restored into a new database (as the README says)
 * has another database, one restored over the old with `--clean` another table. Nothing for
 * SQLite, whose backup copies carry no history instead (`forgetChangeHistoryIn`).
 */
export async function databasePlace(db: Kysely<Database>): Promise<string> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return '';
  const { rows } = await sql<{ place: string }>`
    select oid::text || '.' || 'settings'::regclass::oid::text as place
    from pg_database where datname = current_database()`.execute(db);
  return rows[0]?.place ?? '';
}

/** The stored history setting: `<tag> <place>`, or undefined before the first start. */
export function findChangeHistory(db: Kysely<Database>): Promise<string | undefined> {
  return findSetting(db, CHANGE_HISTORY_SETTING);
}

/**
 * Stores `value` if the setting still holds `expected` (undefined: none yet), so that processes
 * starting at once agree on one history; returns the value stored afterwards.
 */
export async function replaceChangeHistory(
  db: Kysely<Database>,
  expected: string | undefined,
  value: string,
): Promise<string> {
  if (expected === undefined) {
    await db
      .insertInto('settings')
      .values({ key: CHANGE_HISTORY_SETTING, value })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
  } else {
    await db
      .updateTable('settings')
      .set({ value })
      .where('key', '=', CHANGE_HISTORY_SETTING)
      .where('value', '=', expected)
      .execute();
  }
  return (await findChangeHistory(db))!;
}

/** Removes the history of a SQLite file opened on its own (a backup copy). */
export function forgetChangeHistoryIn(copy: DatabaseSync): void {
  copy.prepare('delete from settings where key = ?').run(CHANGE_HISTORY_SETTING);
}

/** Stores `value` as the history, whatever was stored before. */
export async function storeChangeHistory(db: Kysely<Database>, value: string): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key: CHANGE_HISTORY_SETTING, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}

/** How many server processes hold a live lease on this PostgreSQL database (none on SQLite). */
export async function countServingProcesses(db: Kysely<Database>): Promise<number> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return 0;
  const { rows } = await sql<{ count: string }>`
    select count(*) as count from folio_instances where lease_until > now()`.execute(db);
  return Number(rows[0]?.count ?? 0);
}
