import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  SqliteAdapter,
  type SqliteDatabase,
  SqliteDialect,
  SqliteDriver,
  type SqliteStatement,
} from 'kysely';
import { isSqliteLocked } from './errors.ts';
import { createWalHeaderReader } from './wal-header.ts';

/**
 * The embedded database: Kysely's SQLite dialect over Node's built-in `node:sqlite`, so there is
 * no native addon to build. WAL lets readers in other processes (the CLI) work beside the server.
 */
export function createSqliteDialect(file: string): SqliteDialect {
  return openSqlite(file).dialect;
}

/**
 * `PRAGMA synchronous` under WAL. Either way a process crash loses no commit and a power cut
 * never corrupts the file; `normal` syncs the WAL only at checkpoints, so a power cut may roll
 * back the last commits, while `full` syncs it at every commit, which costs each write an fsync.
 */
export type SqliteSynchronous = 'normal' | 'full';

export interface SqliteConnection {
  dialect: SqliteDialect;
  /**
   * Changes whenever anything may have been written: by any process (the WAL-index header, or
   * SQLite's `data_version` where there is none) or through this connection (counted here).
   * Cheap enough to read on every request, so in-process caches can be checked against it.
   */
  changeToken: () => string;
}

/**
 * Creates `dir` and its missing parents. Not `mkdirSync`'s `recursive`, which never returns for
 * a path under a directory that refuses new entries, such as `/proc`, where this throws.
 */
export function makeDirectory(dir: string): void {
  const stat = fs.statSync(dir, { throwIfNoEntry: false });
  if (stat) {
    if (stat.isDirectory()) return;
    throw Object.assign(new Error(`ENOTDIR: not a directory, '${dir}'`), { code: 'ENOTDIR' });
  }
  const parent = path.dirname(dir);
  if (parent !== dir) makeDirectory(parent);
  try {
    fs.mkdirSync(dir);
  } catch (error) {
    // Another process (a second server, a CLI command) made it in between.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !fs.statSync(dir).isDirectory()) throw error;
  }
}

export function openSqlite(file: string, synchronous: SqliteSynchronous = 'normal'): SqliteConnection {
  if (file !== ':memory:') makeDirectory(path.dirname(file));
  const database = new DatabaseSync(file);
  // First, so every later statement waits for a lock instead of failing: switching a fresh
  // file to WAL takes one, and another process may be opening the same file at this instant.
  database.exec(`PRAGMA busy_timeout = ${LOCK_WAIT_MS}`);
  database.exec('PRAGMA journal_mode = WAL');
  database.exec('PRAGMA foreign_keys = ON');
  database.exec(`PRAGMA synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  // From here on a statement that finds the file locked fails at once, and `givingTurns` waits
  // for the lock between tries: SQLite's own wait holds the thread, and with it every request,
  // for as long as another process (an import, a backup) holds the lock.
  database.exec('PRAGMA busy_timeout = 0');
  const writes = { count: 0 };
  const dataVersion = database.prepare('PRAGMA data_version');
  const walHeader = file === ':memory:' ? () => undefined : createWalHeaderReader(file);
  // The same string while neither part moved (see `createWalHeaderReader`).
  let last = { version: undefined as string | number | undefined, writes: -1, token: '' };
  return {
    dialect: new ImmediateSqliteDialect({ database: adaptDatabase(database, writes) }),
    changeToken: () => {
      const version = walHeader() ?? (dataVersion.get() as { data_version: number }).data_version;
      if (version !== last.version || writes.count !== last.writes) {
        last = { version, writes: writes.count, token: `${version}:${writes.count}` };
      }
      return last.token;
    },
  };
}

/** The SQLite dialect with write transactions that take the write lock at BEGIN. */
class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: ConstructorParameters<typeof SqliteDialect>[0];
  constructor(config: ConstructorParameters<typeof SqliteDialect>[0]) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
  override createAdapter() {
    return new TransactionalDdlSqliteAdapter();
  }
}

// SQLite does have transactional DDL. Saying so makes Kysely's migrator run in one (IMMEDIATE)
// transaction, which is the lock that keeps two processes from migrating one file at once;
// Kysely's own SQLite migration lock is a no-op that assumes a single connection.
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  #connection: DatabaseConnection | undefined;

  // A deferred BEGIN that later writes can fail with SQLITE_BUSY when another process wrote in
  // between; IMMEDIATE waits for the lock up front (busy_timeout) instead.
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  // SQLite rolls a transaction back itself when its COMMIT fails for a full disk or an I/O
  // error; Kysely's ROLLBACK after that fails too, and its error would hide the real one.
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.rollbackTransaction(connection);
    } catch (error) {
      if (!/no transaction is active/.test((error as Error).message)) throw error;
    }
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    this.#connection ??= givingTurns(connection, async (wait) => {
      await this.releaseConnection();
      try {
        await wait();
      } finally {
        await super.acquireConnection();
      }
    });
    return this.#connection;
  }
}

// How long statements may run back to back before the event loop gets a turn.
const TURN_AFTER_MS = 10;
// How long a statement waits for another process's write lock before it fails (503).
const LOCK_WAIT_MS = 5_000;

/**
 * node:sqlite runs each statement on the event loop's thread and the driver resolves at once, so
 * statements that follow each other (a transaction over many rows, a prune in batches) never let
 * the loop take a turn: timers, sockets and cached answers would wait for all of them. Once
 * statements have run for `TURN_AFTER_MS` with no turn between them, the next one waits for a
 * turn first. A transaction keeps the connection meanwhile (the driver's mutex), so nothing else
 * runs inside it.
 *
 * A statement that finds the file locked by another process is tried again after a pause, and
 * `letGo` gives the connection up for the pause: there is only one, and the reads it would hold
 * up need no lock. Only a statement outside a transaction (the BEGIN included) can find the file
 * locked, so nothing of the caller's is open on the connection while others use it.
 */
function givingTurns(
  connection: DatabaseConnection,
  letGo: (wait: () => Promise<void>) => Promise<void>,
): DatabaseConnection {
  let busySince: number | undefined;
  const rested = () => {
    busySince = undefined;
  };
  // Inside a transaction the write lock is held (BEGIN IMMEDIATE), so only a statement outside
  // one, the BEGIN included, can find the file locked.
  let inTransaction = false;
  const run = async (query: CompiledQuery) => {
    const deadline = performance.now() + LOCK_WAIT_MS;
    for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
      try {
        return await connection.executeQuery(query);
      } catch (error) {
        if (inTransaction || !isSqliteLocked(error) || performance.now() + pause > deadline) throw error;
        await letGo(() => new Promise((resolve) => setTimeout(resolve, pause)));
      }
    }
  };
  return {
    async executeQuery(query) {
      if (busySince === undefined) {
        busySince = performance.now();
        setImmediate(rested);
      } else if (performance.now() - busySince > TURN_AFTER_MS) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      const control = /^\s*(begin|commit|end|rollback)\b/i.exec(query.sql)?.[1]?.toLowerCase();
      // A COMMIT or ROLLBACK ends the transaction even when it fails (SQLite rolls back itself).
      const result = await run(query).finally(() => {
        if (control !== undefined && control !== 'begin') inTransaction = false;
      });
      if (control === 'begin') inTransaction = true;
      return result as QueryResult<never>;
    },
    streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
  };
}

const STATEMENT_CACHE_SIZE = 200;

/** Wraps `DatabaseSync` in the better-sqlite3-like shape Kysely's driver expects. */
function adaptDatabase(database: DatabaseSync, writes: { count: number }): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => database.close(),
    prepare(sql) {
      const cached = cache.get(sql);
      if (cached) return cached;
      const statement = adaptStatement(database.prepare(sql), writes);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      cache.set(sql, statement);
      return statement;
    },
  };
}

function adaptStatement(statement: StatementSync, writes: { count: number }): SqliteStatement {
  const names = statement.columns().map((column) => column.name);
  const reader = names.length > 0;
  const sql = statement.sourceSQL;
  // Writes with RETURNING are readers too; counting every statement that is not a plain
  // SELECT keeps the change token honest. Two kinds are not counted: BEGIN and COMMIT, which
  // change nothing themselves, and a row write that touched no row. The dispatcher and the
  // scheduler poll in transactions that usually find nothing to do: counted, each poll sent
  // the next cached answers of every key down the full path.
  const control = /^\s*(begin|commit|end|rollback|savepoint|release)\b/i.test(sql);
  const rowWrite = /^\s*(insert|update|delete|replace)\b/i.test(sql);
  const writer = !control && !/^\s*(select|pragma|explain)\b/i.test(sql);
  const toRow = rowBuilder(statement, names);
  return {
    reader,
    all: (parameters) => {
      const rows = statement.all(...bind(parameters));
      if (writer && (!rowWrite || rows.length > 0)) writes.count++;
      return rows.map(toRow);
    },
    run: (parameters) => {
      const result = statement.run(...bind(parameters));
      if (writer && (!rowWrite || Number(result.changes) > 0)) writes.count++;
      return result;
    },
    iterate: function* (parameters) {
      for (const row of statement.iterate(...bind(parameters))) yield toRow(row);
    },
  };
}

/**
 * Rows as plain objects, built here from arrays: node:sqlite sets each property of a row object
 * through the engine's C++ API, which makes reading a large sitemap's rows much slower than
 * taking arrays and building the objects in JavaScript. Node before 22.16 has only objects.
 */
function rowBuilder(statement: StatementSync, names: string[]): (row: unknown) => unknown {
  if (typeof statement.setReturnArrays !== 'function') return (row) => row;
  statement.setReturnArrays(true);
  return (row) => {
    const values = row as unknown[];
    const object: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) object[names[i]!] = values[i];
    return object;
  };
}

// node:sqlite binds numbers, strings, bigints, buffers and null; booleans become 0/1.
function bind(parameters: ReadonlyArray<unknown>): SQLInputValue[] {
  return parameters.map((value) => {
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (value === undefined) return null;
    return value as SQLInputValue;
  });
}
