import fs from 'node:fs';
import { backup, DatabaseSync } from 'node:sqlite';
import { whilePartial } from '../partial-files.ts';

/** What `backupSqlite` wrote. */
export interface SqliteBackup {
  bytes: number;
  pages: number;
}

// Every page in one step: a step reads one snapshot, and under WAL a reader blocks no writer,
// so the server keeps writing meanwhile. Smaller steps would restart the copy each time another
// connection commits between two of them, which on a busy server might never end.
const ALL_PAGES = 2 ** 31 - 1;

/**
 * Copies the SQLite database `source` into `target` with SQLite's online backup, as one
 * consistent snapshot while other processes keep reading and writing. The copy is written
 * beside `target` and moved there at the end, so a failed backup leaves no half-written file;
 * an existing `target` is replaced only with `replace`.
 */
export async function backupSqlite(
  source: string,
  target: string,
  options: {
    replace: boolean;
    /** Changes the copy before it is kept. */
    amend?: (copy: DatabaseSync) => void;
  },
): Promise<SqliteBackup> {
  const partial = `${target}.partial-${process.pid}`;
  const database = new DatabaseSync(source, { timeout: 5000 });
  const written = whilePartial(partial);
  try {
    const pages = await backup(database, partial, { rate: ALL_PAGES });
    if (options.amend) {
      const copy = new DatabaseSync(partial);
      try {
        options.amend(copy);
      } finally {
        copy.close();
      }
    }
    const bytes = fs.statSync(partial).size;
    // A hard link, unlike a rename, fails when the target exists, even one made meanwhile.
    if (options.replace) fs.renameSync(partial, target);
    else fs.linkSync(partial, target);
    return { bytes, pages };
  } finally {
    database.close();
    fs.rmSync(partial, { force: true });
    written();
  }
}
