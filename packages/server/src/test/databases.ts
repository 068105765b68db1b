import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { Kysely } from 'kysely';
import pg from 'pg';
import { type ChangeFeed, type ChangeToken, IMMEDIATE_FEED } from '../db/change-feed.ts';
import type { DialectName } from '../db/connect.ts';
import { connectPostgres } from '../db/postgres.ts';
import { followPostgres } from '../db/postgres-change-feed.ts';
import { postgresChangeToken } from '../db/postgres-change-token.ts';
import { openSqlite } from '../db/sqlite.ts';
import type { Database } from '../db/tables.ts';

/**
 * Databases for tests. SQLite always; PostgreSQL when it answers, and always in CI (CI=true),
 * where a missing server fails the run instead of silently skipping half the suite.
 * Each test file (a process of its own under `node --test`) creates one PostgreSQL database and
 * drops it at the end; each test gets a fresh schema in it, so no state is shared.
 */

const ADMIN_URL = process.env.FOLIO_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function postgresAnswers(): Promise<boolean> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

const postgresAvailable = await postgresAnswers();
if (!postgresAvailable) {
  if (process.env.CI === 'true') {
    throw new Error(`PostgreSQL is required in CI but does not answer at ${ADMIN_URL}`);
  }
  process.stderr.write(
    `\n!!! PostgreSQL does not answer at ${ADMIN_URL}: the PostgreSQL suite is SKIPPED in this run.\n!!! Start it with: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start\n\n`,
  );
}

/** The dialects this run tests. */
export const DIALECTS: DialectName[] = postgresAvailable ? ['sqlite', 'postgres'] : ['sqlite'];

let fileDatabaseUrl: Promise<string> | undefined;
let fileDatabaseName: string | undefined;

// Registered at load time so it belongs to the file's root test and runs after every suite.
after(async () => {
  if (!fileDatabaseName) return;
  const dropper = new pg.Client({ connectionString: ADMIN_URL });
  await dropper.connect();
  await dropper.query(`drop database if exists ${fileDatabaseName} with (force)`);
  await dropper.end();
});

/** This test file's own PostgreSQL database, created on first use and dropped at the end. */
function fileDatabase(): Promise<string> {
  fileDatabaseUrl ??= (async () => {
    const name = `folio_test_${process.pid}_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    fileDatabaseName = name;
    const url = new URL(ADMIN_URL);
    url.pathname = `/${name}`;
    return url.toString();
  })();
  return fileDatabaseUrl;
}

/** The URL of the PostgreSQL server's admin database, for tests that create their own. */
export const POSTGRES_ADMIN_URL = ADMIN_URL;

export interface TestDatabase {
  db: Kysely<Database>;
  dialect: DialectName;
  /** A connection string (PostgreSQL) or the data directory (SQLite) reaching the same data. */
  location: { databaseUrl: string | undefined; dataDir: string };
  /** Another independent connection to the same data, as a second process would have. */
  connectAgain(): Kysely<Database>;
  /** The change token of `db`'s database. */
  changeToken: ChangeToken;
  /** Follows commits as a server process does (call once migrated); closed with the database. */
  follow(options: { serving: boolean }): Promise<ChangeFeed>;
  close(): Promise<void>;
}

/** What a server process is started with to use `database`: its data directory or URL. */
export function databaseEnv(database: TestDatabase): Record<string, string> {
  const { dataDir, databaseUrl } = database.location;
  return { FOLIO_DATA_DIR: dataDir, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) };
}

/** A fresh, empty database of the given dialect. */
export async function createTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  const handles: Kysely<Database>[] = [];
  const track = (db: Kysely<Database>) => {
    handles.push(db);
    return db;
  };
  const feeds: ChangeFeed[] = [];
  const close = async () => {
    for (const feed of feeds.splice(0)) await feed.close();
    for (const handle of handles.splice(0)) await handle.destroy();
  };

  if (dialect === 'sqlite') {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-test-'));
    const file = path.join(dataDir, 'folio.sqlite');
    const connect = () => track(new Kysely<Database>({ dialect: openSqlite(file).dialect }));
    const first = openSqlite(file);
    return {
      db: track(new Kysely<Database>({ dialect: first.dialect })),
      changeToken: first.changeToken,
      follow: () => Promise.resolve(IMMEDIATE_FEED),
      dialect,
      location: { databaseUrl: undefined, dataDir },
      connectAgain: connect,
      close: async () => {
        await close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }

  const base = await fileDatabase();
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const setup = new pg.Client({ connectionString: base });
  await setup.connect();
  await setup.query(`create schema ${schema}`);
  await setup.end();
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const databaseUrl = url.toString();
  const connect = () => {
    const { dialect, pool } = connectPostgres(databaseUrl, 4);
    return { db: track(new Kysely<Database>({ dialect })), pool };
  };
  const { db, pool } = connect();
  return {
    db,
    changeToken: postgresChangeToken(pool),
    follow: async ({ serving }) => {
      const feed = await followPostgres({ connectionString: databaseUrl, pool, serving });
      feeds.push(feed);
      return feed;
    },
    dialect,
    location: { databaseUrl, dataDir: os.tmpdir() },
    connectAgain: () => connect().db,
    close,
  };
}
