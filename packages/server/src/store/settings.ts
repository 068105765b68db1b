import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';

export async function findSetting(db: Kysely<Database>, key: string): Promise<string | undefined> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value;
}

/** Stores `value` unless the key exists; returns the value that is stored afterwards. */
export async function insertSettingIfAbsent(
  db: Kysely<Database>,
  key: string,
  value: string,
): Promise<string> {
  await db
    .insertInto('settings')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  return (await findSetting(db, key))!;
}

/** Stores `value` under `key`, replacing the value it had. */
export async function upsertSetting(db: Kysely<Database>, key: string, value: string): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}
