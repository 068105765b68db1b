import { randomBytes } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import {
  databasePlace,
  findChangeHistory,
  forgetChangeHistoryIn,
  replaceChangeHistory,
} from '../store/change-history.ts';
import type { ServiceDeps } from './deps.ts';

/**
 * The tag of this database's history of changes, which every changes-feed cursor carries. A
 * database restored from a backup numbers its next changes as the lost ones were numbered, so a
 * replica's cursor from before the restore would read as a position in the new history and
 * miss what it holds; with another tag, it is answered 410 and the replica syncs anew. The tag
 * is made at the first start, and anew when the database is found in another place (a
 * PostgreSQL dump restored) or without one (a SQLite backup copy, however many times it is
 * restored).
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
function newHistoryTag(): string {
  return randomBytes(6).toString('base64url');
}

/**
 * Leaves a SQLite backup copy without a history: a server started on it, once restored, makes a
 * new one (each time the copy is restored), and the replicas' cursors are answered 410.
 */
export function startNewHistoryIn(copy: DatabaseSync): void {
  forgetChangeHistoryIn(copy);
}
