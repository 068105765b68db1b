import path from 'node:path';
import { Kysely } from 'kysely';
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
}

/** Reads the database's change token: synchronously on SQLite, with one query on PostgreSQL. */
export type ChangeToken = () => string | Promise<string>;

export interface DatabaseOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  /** PostgreSQL pool size. */
  poolSize?: number;
}

/** Opens the configured database: PostgreSQL for a `postgres://` URL, else the SQLite file. */
export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) {
    const { connectPostgres } = await import('./postgres.ts');
    const { postgresChangeToken } = await import('./postgres-change-token.ts');
    const { dialect, pool } = connectPostgres(options.databaseUrl, options.poolSize);
    return {
      db: new Kysely<Database>({ dialect }),
      changeToken: postgresChangeToken(pool),
      dialect: 'postgres',
      location: redact(options.databaseUrl),
    };
  }
  const { openSqlite } = await import('./sqlite.ts');
  const file = path.join(options.dataDir, 'folio.sqlite');
  const sqlite = openSqlite(file);
  return {
    db: new Kysely<Database>({ dialect: sqlite.dialect }),
    changeToken: sqlite.changeToken,
    dialect: 'sqlite',
    location: file,
  };
}

function redact(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return 'postgres';
  }
}
