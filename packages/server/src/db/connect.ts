import path from 'node:path';
import { Kysely } from 'kysely';
import { redactUrl } from '../redact-url.ts';
import { type ChangeFeed, type ChangeToken, IMMEDIATE_FEED } from './change-feed.ts';
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
}

export interface DatabaseOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  /** PostgreSQL pool size. */
  poolSize?: number;
  /** SQLite's `synchronous` (see `db/sqlite.ts`); `normal` when left out. */
  sqliteSynchronous?: SqliteSynchronous;
}

/** Opens the configured database: PostgreSQL for a `postgres://` URL, else the SQLite file. */
export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) {
    const { connectPostgres } = await import('./postgres.ts');
    const { postgresChangeToken } = await import('./postgres-change-token.ts');
    const { followPostgres } = await import('./postgres-change-feed.ts');
    const { dialect, pool } = connectPostgres(options.databaseUrl, options.poolSize);
    const connectionString = options.databaseUrl;
    return {
      db: new Kysely<Database>({ dialect }),
      changeToken: postgresChangeToken(pool),
      follow: (feed) => followPostgres({ connectionString, pool, ...feed }),
      dialect: 'postgres',
      location: redactUrl(options.databaseUrl, 'postgres'),
    };
  }
  const { openSqlite } = await import('./sqlite.ts');
  const file = sqliteFile(options.dataDir);
  const sqlite = openSqlite(file, options.sqliteSynchronous);
  return {
    db: new Kysely<Database>({ dialect: sqlite.dialect }),
    changeToken: sqlite.changeToken,
    follow: () => Promise.resolve(IMMEDIATE_FEED),
    dialect: 'sqlite',
    location: file,
  };
}

/** The embedded database's file in the data directory. */
export function sqliteFile(dataDir: string): string {
  return path.join(dataDir, 'folio.sqlite');
}
