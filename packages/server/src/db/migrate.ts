import { type Kysely, type Migration, Migrator, sql } from 'kysely';
import type { DialectName } from './connect.ts';
import * as m0001 from './migrations/0001-initial.ts';
import * as m0002 from './migrations/0002-webhooks.ts';
import * as m0003 from './migrations/0003-served-articles.ts';
import * as m0004 from './migrations/0004-dashboard-sessions.ts';
import * as m0005 from './migrations/0005-covering-published-order.ts';
import * as m0006 from './migrations/0006-change-feed.ts';
import * as m0007 from './migrations/0007-served-lz4.ts';
import * as m0008 from './migrations/0008-changes-feed.ts';
import * as m0009 from './migrations/0009-editorial.ts';
import * as m0010 from './migrations/0010-delivery-resend.ts';
import * as m0011 from './migrations/0011-webhook-history.ts';
import * as m0012 from './migrations/0012-admin-order.ts';
import * as m0013 from './migrations/0013-preview-order.ts';
import * as m0014 from './migrations/0014-served-rewrite.ts';
import * as m0015 from './migrations/0015-deliveries-by-project.ts';
import * as m0016 from './migrations/0016-article-id-order.ts';
import * as m0017 from './migrations/0017-pending-age.ts';

/** Every migration, in order. Names are permanent: they are recorded in the database. */
export const MIGRATIONS: Record<string, Migration> = {
  '0001-initial': m0001,
  '0002-webhooks': m0002,
  '0003-served-articles': m0003,
  '0004-dashboard-sessions': m0004,
  '0005-covering-published-order': m0005,
  '0006-change-feed': m0006,
  '0007-served-lz4': m0007,
  '0008-changes-feed': m0008,
  '0009-editorial': m0009,
  '0010-delivery-resend': m0010,
  '0011-webhook-history': m0011,
  '0012-admin-order': m0012,
  '0013-preview-order': m0013,
  '0014-served-rewrite': m0014,
  '0015-deliveries-by-project': m0015,
  '0016-article-id-order': m0016,
  '0017-pending-age': m0017,
};

// Any constant shared by all Folio processes; it names the lock, nothing else.
const MIGRATION_LOCK_KEY = 4_711_001;

/**
 * Applies pending migrations. On PostgreSQL a session advisory lock serializes processes that
 * start at once, so the second waits and then finds nothing to do.
 * Returns the names of the migrations this call applied.
 */
export async function migrateToLatest<DB>(db: Kysely<DB>, dialect: DialectName): Promise<string[]> {
  if (dialect !== 'postgres') return runMigrator(db);
  return db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`.execute(connection);
    try {
      // Keep Kysely's bookkeeping tables beside the data, in whatever schema search_path selects.
      const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(connection);
      return await runMigrator(connection, rows[0]?.schema);
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.execute(connection);
    }
  });
}

async function runMigrator<DB>(db: Kysely<DB>, schema?: string): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => MIGRATIONS },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw explained(error);
  return (results ?? [])
    .filter((result) => result.status === 'Success')
    .map((result) => result.migrationName);
}

// Kysely's words for a database that a newer version migrated ("corrupted migrations") send an
// operator looking for damage; what happened is an upgrade, and its README section says what to do.
const UNKNOWN_MIGRATION = /previously executed migration (\S+) is missing/;

function explained(error: unknown): Error {
  const unknown = error instanceof Error ? UNKNOWN_MIGRATION.exec(error.message) : null;
  if (!unknown) return error instanceof Error ? error : new Error(String(error));
  return new Error(
    `this database was migrated by a newer version of Folio (its migration ${unknown[1]} is not one this version has): run that version, or restore the backup taken before the upgrade (README, Upgrading)`,
    { cause: error },
  );
}
