import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/** A fresh place for a benchmark server's data. */
export interface BenchStore {
  name: string;
  /** The server's environment for it: `FOLIO_DATA_DIR` or `DATABASE_URL`. */
  env: Record<string, string>;
  /** The same, for opening the database in-process: undefined selects SQLite in `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  drop: () => Promise<void>;
}

let schemas = 0;

/** Where the server keeps its data: a temporary SQLite directory or a fresh PostgreSQL schema. */
export async function prepareStore(databaseUrl: string | undefined): Promise<BenchStore> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-bench-'));
  const removeDir = async () => fs.rmSync(dataDir, { recursive: true, force: true });
  if (!databaseUrl) {
    return {
      name: 'SQLite',
      env: { FOLIO_DATA_DIR: dataDir },
      databaseUrl: undefined,
      dataDir,
      drop: removeDir,
    };
  }
  const schema = `folio_bench_${process.pid}_${schemas++}`;
  const run = async (sql: string) => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await run(`create schema ${schema}`);
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    name: 'PostgreSQL',
    env: { DATABASE_URL: url.toString(), FOLIO_DATA_DIR: dataDir },
    databaseUrl: url.toString(),
    dataDir,
    drop: async () => {
      await removeDir();
      await run(`drop schema ${schema} cascade`);
    },
  };
}
