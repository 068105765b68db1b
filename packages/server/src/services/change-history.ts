import { randomBytes } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import { AppError } from '../errors.ts';
import {
  countServingProcesses,
  databasePlace,
  findChangeHistory,
  forgetChangeHistoryIn,
  replaceChangeHistory,
  storeChangeHistory,
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

/**
 * Starts a new history for a database restored by other means than `folio backup`'s copy or a
 * dump restored elsewhere (a file-system snapshot, a point-in-time recovery), which keep the
 * tag of the history they lost part of. Refused while servers run on it: they would go on
 * handing out cursors of the old history, and each process would refuse the other's.
 */
export async function startNewChangeHistory(deps: ServiceDeps): Promise<string> {
  const serving = await countServingProcesses(deps.db);
  if (serving > 0) {
    throw new AppError(
      'conflict',
      `${serving === 1 ? 'A server process is' : `${serving} server processes are`} running on this database: stop every server first, then start them after this command.`,
    );
  }
  const tag = newHistoryTag();
  await storeChangeHistory(deps.db, `${tag} ${await databasePlace(deps.db)}`);
  return tag;
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
