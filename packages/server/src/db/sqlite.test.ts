import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { Kysely, sql } from 'kysely';
import { openDatabase } from './connect.ts';
import { openSqlite } from './sqlite.ts';
import { createWalHeaderReader } from './wal-header.ts';

describe('the SQLite change token', () => {
  let dir: string;
  let file: string;
  const open: Array<Kysely<unknown>> = [];
  const connect = () => {
    const connection = openSqlite(file);
    const db = new Kysely<unknown>({ dialect: connection.dialect });
    open.push(db);
    return { db, changeToken: connection.changeToken };
  };
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-token-'));
    file = path.join(dir, 'folio.sqlite');
    const { db } = connect();
    await sql`create table t (n integer)`.execute(db);
  });
  afterEach(async () => {
    for (const db of open.splice(0)) await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('stays put while only reads happen, anywhere', async () => {
    const mine = connect();
    const other = connect();
    const before = mine.changeToken();
    await sql`select count(*) from t`.execute(mine.db);
    await sql`select count(*) from t`.execute(other.db);
    assert.equal(mine.changeToken(), before);
  });

  test('moves on a commit through this connection and through another one', async () => {
    const mine = connect();
    const other = connect();
    const start = mine.changeToken();
    await sql`insert into t values (1)`.execute(mine.db);
    const afterMine = mine.changeToken();
    assert.notEqual(afterMine, start);
    await sql`insert into t values (2)`.execute(other.db);
    assert.notEqual(mine.changeToken(), afterMine);
  });

  test('moves on a commit by another process, and after a checkpoint restarts the log', async () => {
    const mine = connect();
    await sql`select count(*) from t`.execute(mine.db);
    const before = mine.changeToken();
    const child = spawnSync(
      process.execPath,
      [
        '-e',
        `const { DatabaseSync } = require('node:sqlite');
         const db = new DatabaseSync(${JSON.stringify(file)});
         db.exec('PRAGMA busy_timeout = 5000');
         db.exec('insert into t values (3)');
         db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
         db.exec('insert into t values (4)');
         db.close();`,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(child.status, 0, child.stderr);
    const after = mine.changeToken();
    assert.notEqual(after, before);
    const rows = await sql<{ n: number }>`select count(*) as n from t`.execute(mine.db);
    assert.equal(rows.rows[0]!.n, 2);
    assert.equal(mine.changeToken(), after);
  });

  test('is read from the WAL index, without a statement, once the database has one', async () => {
    const mine = connect();
    const header = createWalHeaderReader(file);
    const before = header();
    assert.equal(before?.length, 48);
    await sql`select count(*) from t`.execute(mine.db);
    assert.equal(header(), before);
    await sql`insert into t values (5)`.execute(connect().db);
    assert.notEqual(header(), before);
    assert.equal(createWalHeaderReader(path.join(dir, 'missing.sqlite'))(), undefined);
  });
});

describe('SQLite durability', () => {
  test('FOLIO_SQLITE_SYNCHRONOUS reaches the connection: normal unless full is chosen', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-sync-'));
    try {
      for (const [choice, pragma] of [
        [undefined, 1],
        ['full', 2],
        ['normal', 1],
      ] as const) {
        const handle = await openDatabase({
          databaseUrl: undefined,
          dataDir,
          ...(choice ? { sqliteSynchronous: choice } : {}),
        });
        const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(handle.db);
        await handle.db.destroy();
        assert.equal(rows[0]!.synchronous, pragma, String(choice));
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/** A database file and, on it, another process's connection that can take the write lock. */
async function withNeighbour(
  work: (db: Kysely<unknown>, other: DatabaseSync) => Promise<void>,
): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-lock-'));
  const file = path.join(dir, 'folio.sqlite');
  const db = new Kysely<unknown>({ dialect: openSqlite(file).dialect });
  const other = new DatabaseSync(file);
  try {
    await work(db, other);
  } finally {
    other.close();
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('SQLite and the event loop', () => {
  test('statements back to back, in a transaction or not, give the event loop turns', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-turns-'));
    const db = new Kysely<unknown>({ dialect: openSqlite(path.join(dir, 'folio.sqlite')).dialect });
    try {
      await sql`create table t (n integer)`.execute(db);
      // Each loop runs statements until a timer set before it has fired, or for a second: without
      // turns, node:sqlite answers every statement at once and the timer waits for the whole loop.
      const untilATimerFires = async (statement: () => Promise<unknown>) => {
        let fired = false;
        setTimeout(() => {
          fired = true;
        }, 0);
        const start = performance.now();
        while (!fired && performance.now() - start < 1000) await statement();
        return fired;
      };
      assert.ok(await untilATimerFires(() => sql`insert into t (n) values (1)`.execute(db)), 'outside');
      const inside = await db
        .transaction()
        .execute((trx) => untilATimerFires(() => sql`insert into t (n) values (2)`.execute(trx)));
      assert.ok(inside, 'inside one transaction');
      const { rows } = await sql<{ n: number }>`select count(*) as n from t where n = 2`.execute(db);
      assert.ok(rows[0]!.n > 0, 'the transaction committed');
    } finally {
      await db.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("another process's write lock is waited for between turns, not on the thread", async () => {
    await withNeighbour(async (db, other) => {
      await sql`create table t (n integer)`.execute(db);
      other.exec('begin immediate');
      // Released by a timer: a wait on the thread would keep it from firing, and fail after 5 s.
      setTimeout(() => other.exec('commit'), 100);
      await sql`insert into t (n) values (1)`.execute(db);
      other.exec('begin immediate');
      setTimeout(() => other.exec('commit'), 100);
      await db.transaction().execute((trx) => sql`insert into t (n) values (2)`.execute(trx));
      const { rows } = await sql<{ n: number }>`select count(*) as n from t`.execute(db);
      assert.equal(rows[0]!.n, 2);
    });
  });

  test("while a write waits for another process's lock, reads go on", async () => {
    await withNeighbour(async (db, other) => {
      await sql`create table t (n integer)`.execute(db);
      await sql`insert into t (n) values (1)`.execute(db);
      // A write in a transaction and one on its own, each waiting for the other process.
      for (const write of [
        () => db.transaction().execute((trx) => sql`insert into t (n) values (2)`.execute(trx)),
        () => sql`update t set n = n + 10`.execute(db),
      ]) {
        other.exec('begin immediate');
        let released = false;
        setTimeout(() => {
          other.exec('commit');
          released = true;
        }, 300);
        const waiting = write();
        await new Promise((resolve) => setTimeout(resolve, 30));
        // The one connection is not held by the waiting write: a read needs no lock.
        await sql`select count(*) as n from t`.execute(db);
        assert.equal(released, false, 'the read waited for the other process');
        await waiting;
        assert.equal(released, true);
      }
      const { rows } = await sql<{ n: number }>`select sum(n) as n from t`.execute(db);
      assert.equal(rows[0]!.n, 11 + 12);
    });
  });
});
