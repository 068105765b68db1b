// A second process for concurrency tests: opens the configured database, migrates, and prints
// the names of the migrations it applied as JSON.
import { openDatabase } from '../db/connect.ts';

// Both children start migrating at the same instant, whatever their start-up took.
const startAt = Number(process.env.START_AT ?? 0);
await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt - Date.now())));

const database = await openDatabase({
  databaseUrl: process.env.DATABASE_URL || undefined,
  dataDir: process.env.FOLIO_DATA_DIR ?? './data',
});
const applied = await database.migrate();
await database.db.destroy();
process.stdout.write(JSON.stringify(applied));
