import path from 'node:path';
import { Kysely } from 'kysely';
import { ConfigError } from '../config.ts';
import { AppError, reasonOf } from '../errors.ts';
import { redactUrl } from '../redact-url.ts';
import { type ChangeFeed, type ChangeToken, IMMEDIATE_FEED } from './change-feed.ts';
import { isSqliteLocked } from './errors.ts';
import { migrateToLatest } from './migrate.ts';
import type { SqliteSynchronous } from './sqlite.ts';
import type { Database } from './tables.ts';

/** Which database a `Kysely` talks to; only the files in `db/` branch on it. */
export type DialectName = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Kysely<Database>;
  dialect: DialectName;
  /** Where the data lives, for logs: the SQLite file or the PostgreSQL URL without credentials. */
  location: string;
  /** A cheap token that changes on every commit by any process (see `http/fast-path.ts`). */
  changeToken: ChangeToken;
  /**
   * Starts following commits made anywhere; call it once the database is migrated. A serving
   * process holds a lease and answers barriers; a CLI or worker only waits for them.
   */
  follow(options: { serving: boolean; warn?: (message: string) => void }): Promise<ChangeFeed>;
  /**
   * Applies pending migrations and returns their names. On PostgreSQL through a connection of
   * its own without the query deadline: a migration may rewrite a large table, and a second
   * process starting at once waits on the first's lock for as long as that takes.
   */
  migrate(): Promise<string[]>;
}

export interface DatabaseOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  /** PostgreSQL pool size. */
  poolSize?: number;
  /** PostgreSQL: how long a query may go unanswered before it fails (and its connection goes). */
  databaseTimeoutMs?: number;
  /** SQLite's `synchronous` (see `db/sqlite.ts`); `normal` when left out. */
  sqliteSynchronous?: SqliteSynchronous;
}

/** Opens the configured database: PostgreSQL for a `postgres://` URL, else the SQLite file. */
export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) {
    const { connectPostgres, NO_QUERY_DEADLINE } = await import('./postgres.ts');
    const { postgresChangeToken } = await import('./postgres-change-token.ts');
    const { followPostgres } = await import('./postgres-change-feed.ts');
    const { dialect, pool } = connectPostgres(
      options.databaseUrl,
      options.poolSize,
      options.databaseTimeoutMs,
    );
    const connectionString = options.databaseUrl;
    const location = redactUrl(options.databaseUrl, 'postgres');
    // Said at once, naming the setting, rather than as a driver's error from the first query.
    await pool.query('select 1').catch(async (error: unknown) => {
      await pool.end();
      throw new AppError('unavailable', `DATABASE_URL: cannot use ${location}: ${reasonOf(error)}`);
    });
    return {
      db: new Kysely<Database>({ dialect }),
      changeToken: postgresChangeToken(pool),
      follow: (feed) => followPostgres({ connectionString, pool, ...feed }),
      async migrate() {
        const own = connectPostgres(connectionString, 1, NO_QUERY_DEADLINE);
        const migrating = new Kysely<Database>({ dialect: own.dialect });
        try {
          return await migrateToLatest(migrating, 'postgres');
        } finally {
          await migrating.destroy();
        }
      },
      dialect: 'postgres',
      location,
    };
  }
  const { makeDirectory, openSqlite } = await import('./sqlite.ts');
  const file = sqliteFile(options.dataDir);
  const unusable = (reason: string) =>
    new ConfigError([`FOLIO_DATA_DIR=${JSON.stringify(options.dataDir)} cannot be used: ${reason}`]);
  try {
    makeDirectory(path.dirname(file));
  } catch (error) {
    throw unusable((error as Error).message);
  }
  let sqlite: ReturnType<typeof openSqlite>;
  try {
    sqlite = openSqlite(file, options.sqliteSynchronous);
  } catch (error) {
    // The file itself: read-only, not a database, on a failing disk. Another process's lock is
    // not the setting's fault, and says so itself.
    if ((error as { code?: unknown }).code !== 'ERR_SQLITE_ERROR' || isSqliteLocked(error)) throw error;
    throw unusable(`${file}: ${(error as Error).message} (Folio writes the file and its directory)`);
  }
  const db = new Kysely<Database>({ dialect: sqlite.dialect });
  return {
    db,
    changeToken: sqlite.changeToken,
    follow: () => Promise.resolve(IMMEDIATE_FEED),
    migrate: () => migrateToLatest(db, 'sqlite'),
    dialect: 'sqlite',
    location: file,
  };
}

/** The embedded database's file in the data directory. */
export function sqliteFile(dataDir: string): string {
  return path.join(dataDir, 'folio.sqlite');
}
