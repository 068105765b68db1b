import fs from 'node:fs';

// The first copy of the WAL-index header: SQLite writes it last when a commit is published
// (https://sqlite.org/walformat.html#the_wal_index_file_format), and its change counter and
// last-frame index move on every commit by any process.
const HEADER_BYTES = 48;

/**
 * Reads the WAL-index header of a database in WAL mode from its `-shm` file: one `pread`, a
 * fraction of the cost of a statement, which matters on the cached path (BENCHMARKS.md,
 * "Delivery", the cached rows). Returns undefined while the file does not exist (before the
 * first transaction).
 *
 * The descriptor stays open for the life of the process on purpose: closing any descriptor of
 * a file drops every POSIX lock this process holds on it, and SQLite's locks on `-shm` are
 * among them.
 */
export function createWalHeaderReader(databaseFile: string): () => string | undefined {
  const header = Buffer.alloc(HEADER_BYTES);
  let fd: number | undefined;
  return () => {
    if (fd === undefined) {
      try {
        fd = fs.openSync(`${databaseFile}-shm`, 'r');
      } catch {
        return undefined;
      }
    }
    const read = fs.readSync(fd, header, 0, HEADER_BYTES, 0);
    return read === HEADER_BYTES ? header.toString('latin1') : undefined;
  };
}
