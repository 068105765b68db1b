/** True when `error` is a unique-constraint violation, in either dialect's words. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code === '23505') return true; // PostgreSQL unique_violation
  return typeof message === 'string' && message.includes('UNIQUE constraint failed'); // SQLite
}

// PostgreSQL SQLSTATEs of a connection that is gone or not yet possible: class 08 (connection
// exception), 57P01–57P03 (terminated by an administrator or a crash, or the server is starting
// up or shutting down), 53300 (too many connections).
const UNREACHABLE_STATES = /^(08...|57P0[123]|53300)$/;
// Socket errors on the way to the database.
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
// What `pg` and `pg-pool` say, without a code, when a connection ends or cannot be had (`timeout
// expired`: the socket opened but the server never answered, as a frozen one does), or a query
// goes unanswered past the pool's `query_timeout`.
const DRIVER_MESSAGES =
  /^(Connection terminated|Client has encountered a connection error|Client was closed|timeout exceeded when trying to connect|Connection terminated due to connection timeout|Query read timeout|timeout expired$)/;
// SQLite: SQLITE_BUSY and SQLITE_LOCKED, another connection holding the file past the busy timeout.
const SQLITE_BUSY_CODES = new Set([5, 6]);

/**
 * True when `error` says the database could not be reached or dropped the connection: nothing
 * is wrong with the request, and the same request can succeed once the database is back.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (UNREACHABLE_STATES.test(code) || SOCKET_CODES.has(code))) return true;
  // 55000 is a general state error; on connecting, it is a database closed to connections
  // (`ALLOW_CONNECTIONS false`, as during maintenance).
  if (
    code === '55000' &&
    typeof message === 'string' &&
    message.includes('not currently accepting connections')
  )
    return true;
  if (code === 'ERR_SQLITE_ERROR') return isSqliteLocked(error);
  return typeof message === 'string' && DRIVER_MESSAGES.test(message);
}

/** True when `error` is SQLite finding the file locked by another connection. */
export function isSqliteLocked(error: unknown): boolean {
  const { code, errcode } = error as { code?: unknown; errcode?: unknown };
  return code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number' && SQLITE_BUSY_CODES.has(errcode & 0xff);
}

// SQLite: SQLITE_READONLY, SQLITE_IOERR and SQLITE_FULL, extended codes included.
const SQLITE_STORAGE_CODES = new Set([8, 10, 13]);
// PostgreSQL: disk_full, and read_only_sql_transaction (a standby, or a database set read-only).
const STORAGE_STATES = new Set(['53100', '25006']);

/**
 * True when `error` is the database refusing to store a change: its disk is full, read-only or
 * failing. Nothing is wrong with the request, and reads still work, but no write can succeed
 * until an operator makes room.
 */
export function isDatabaseStorageRefusal(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, errcode } = error as { code?: unknown; errcode?: unknown };
  if (typeof code === 'string' && STORAGE_STATES.has(code)) return true;
  return (
    code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number' && SQLITE_STORAGE_CODES.has(errcode & 0xff)
  );
}
