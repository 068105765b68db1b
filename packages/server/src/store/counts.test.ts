import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { migrateToLatest } from '../db/migrate.ts';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../test/databases.ts';
import { findOldestPendingCreatedAt, oldestPendingQuery } from './counts.ts';

for (const dialect of DIALECTS) {
  describe(`scraped counts [${dialect}]`, () => {
    let database: TestDatabase;
    beforeEach(async () => {
      database = await createTestDatabase(dialect);
      await migrateToLatest(database.db, dialect);
    });
    afterEach(() => database.close());

    /** `count` deliveries, created one second apart from `from`, the first `pending` of them pending. */
    async function deliveries(count: number, pending: number, from: number) {
      await sql`insert into projects (id, name, created_at) values ('p', 'p', 0)`.execute(database.db);
      for (let i = 0; i < count; i++) {
        await sql`insert into events (id, project_id, type, payload, created_at)
          values (${`evt_${i}`}, 'p', 'content.updated', '{}', 0)`.execute(database.db);
      }
      const rows = Array.from({ length: count }, (_, i) => ({
        id: `dlv_${i}`,
        project_id: 'p',
        event_id: `evt_${i}`,
        status: (i < count - pending ? 'succeeded' : 'pending') as 'pending',
        next_attempt_at: i < count - pending ? null : 0,
        last_status_code: null,
        last_error: null,
        created_at: from + i * 1000,
        updated_at: 0,
      }));
      await database.db.insertInto('webhook_deliveries').values(rows).execute();
    }

    test('the oldest pending delivery is read on the pending index, not by sorting the backlog', async () => {
      assert.equal(await findOldestPendingCreatedAt(database.db), undefined);
      await deliveries(300, 100, 5_000);
      assert.equal(await findOldestPendingCreatedAt(database.db), 5_000 + 200 * 1000);
      // SQLite plans without statistics, as a Folio database has none; PostgreSQL gathers them.
      if (dialect === 'postgres') {
        await sql`analyze`.execute(database.db);
        await sql`set enable_seqscan = off`.execute(database.db);
      }
      const query = oldestPendingQuery(database.db).compile();
      const explain = dialect === 'sqlite' ? 'explain query plan ' : 'explain ';
      const plan = JSON.stringify(
        (await database.db.executeQuery(CompiledQuery.raw(explain + query.sql, [...query.parameters]))).rows,
      );
      assert.match(plan, /webhook_deliveries_pending_age/, plan);
      assert.doesNotMatch(plan, /TEMP B-TREE|Sort/, plan);
    });
  });
}
