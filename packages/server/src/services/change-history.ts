import { randomBytes } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import {
  databasePlace,
  findChangeHistory,
  replaceChangeHistory,
  replaceChangeHistoryIn,
} from '../store/change-history.ts';
import type { ServiceDeps } from './deps.ts';

/**
 * The tag of this database's history of changes, which every changes-feed cursor carries. A
 * database restored from a backup numbers its next changes as the lost ones were numbered, so a
 * replica's cursor from before the restore would read as a position in the new history and
 * miss what it holds; with another tag, it is answered 410 and the replica syncs anew. The tag
 * is made at the first start, anew when the database is found in another place (a PostgreSQL
 * dump restored into a new database), and anew in every SQLite backup copy.
 */
export async function openChangeHistory(deps: ServiceDeps): Promise<string> {
  const place = await databasePlace(deps.db);
  let stored = await findChangeHistory(deps.db);
  // Twice at most: another process starting at once may have stored its own tag first.
  for (let tries = 0; tries < 2; tries++) {
    const [tag, where = ''] = stored?.split(' ') ?? [];
    if (tag && where === place) return tag;
    stored = await replaceChangeHistory(deps.db, stored, `${newHistoryTag()} ${place}`);
  }
  return stored!.split(' ')[0]!;
}

/** A new history tag: 8 characters of base64url. */
export function newHistoryTag(): string {
  return randomBytes(6).toString('base64url');
}

/**
 * Gives a SQLite backup copy a history of its own: once restored, it is not the database whose
 * later changes the replicas' cursors count, and they are answered 410.
 */
export function startNewHistoryIn(copy: DatabaseSync): void {
  replaceChangeHistoryIn(copy, newHistoryTag());
}
