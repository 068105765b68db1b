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
  // The last header read and its text, which is returned again, the same string, while the
  // header stays: the fast path compares the token of each cached answer with the one its key
  // was checked under, and two strings of one text compare character by character, a string
  // with itself at once.
  const last = Buffer.alloc(HEADER_BYTES);
  let lastText: string | undefined;
  let fd: number | undefined;
  return () => {
    if (fd === undefined) {
      try {
        fd = fs.openSync(`${databaseFile}-shm`, 'r');
      } catch {
        return undefined;
      }
    }
    if (fs.readSync(fd, header, 0, HEADER_BYTES, 0) !== HEADER_BYTES) return undefined;
    if (lastText === undefined || !header.equals(last)) {
      header.copy(last);
      lastText = header.toString('latin1');
    }
    return lastText;
  };
}
