import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { migrateToLatest } from '../db/migrate.ts';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../test/databases.ts';
import {
  dueHeadsQuery,
  listPendingProjects,
  pendingProjectsQuery,
  selectDueDeliveries,
} from './webhook-deliveries.ts';

const NOW = 1_000_000;

for (const dialect of DIALECTS) {
  describe(`claiming due deliveries [${dialect}]`, () => {
    let database: TestDatabase;
    beforeEach(async () => {
      database = await createTestDatabase(dialect);
      await migrateToLatest(database.db, dialect);
    });
    afterEach(() => database.close());

    /** Deliveries of project `projectId`, each `[id, nextAttemptAt, status?, lockedUntil?]`. */
    async function deliveries(projectId: string, rows: Array<[string, number, string?, number?]>) {
      await sql`insert into projects (id, name, created_at) values (${projectId}, ${projectId}, 0)`.execute(
        database.db,
      );
      for (const [id, at, status, lockedUntil] of rows) {
        await sql`insert into events (id, project_id, type, payload, created_at)
          values (${`evt_${id}`}, ${projectId}, 'content.updated', '{}', 0)`.execute(database.db);
        await database.db
          .insertInto('webhook_deliveries')
          .values({
            id,
            project_id: projectId,
            event_id: `evt_${id}`,
            status: (status ?? 'pending') as 'pending',
            next_attempt_at: status === 'succeeded' ? null : at,
            lock_token: lockedUntil === undefined ? null : 'held',
            locked_until: lockedUntil ?? null,
            last_status_code: null,
            last_error: null,
            created_at: 0,
            updated_at: 0,
          })
          .execute();
      }
    }

    async function due(excludeProjects: string[], limit: number) {
      return database.db
        .transaction()
        .execute((trx) =>
          selectDueDeliveries(trx, { now: NOW, limit, excludeProjects, lockRows: dialect === 'postgres' }),
        );
    }

    test('skipping a busy project gives the others’ oldest due deliveries, as the walk would', async () => {
      // A backlog in the busy project, due before everything else.
      await deliveries(
        'busy',
        Array.from(
          { length: 40 },
          (_, i) => [`busy-${String(i).padStart(2, '0')}`, 100 + i] as [string, number],
        ),
      );
      await deliveries('b', [
        ['b-3', 900],
        ['b-1', 500],
        ['b-2', 700],
        ['b-held', 200, 'pending', NOW + 1000],
        ['b-later', NOW + 1],
      ]);
      await deliveries('c', [
        ['c-2', 600],
        ['c-1', 550],
        ['c-lease-over', 300, 'pending', NOW - 1],
        ['c-done', 0, 'succeeded'],
      ]);
      await deliveries('d', [['d-done', 0, 'succeeded']]);

      assert.deepEqual(await listPendingProjects(database.db), ['b', 'busy', 'c']);
      const expected = [
        { id: 'c-lease-over', project_id: 'c' },
        { id: 'b-1', project_id: 'b' },
        { id: 'c-1', project_id: 'c' },
        { id: 'c-2', project_id: 'c' },
      ];
      assert.deepEqual(await due(['busy'], 4), expected);
      assert.deepEqual(await due(['busy', 'c'], 10), [
        { id: 'b-1', project_id: 'b' },
        { id: 'b-2', project_id: 'b' },
        { id: 'b-3', project_id: 'b' },
      ]);
      assert.deepEqual(await due(['busy', 'b', 'c'], 10), []);
      // Nothing skipped: the due index, walked in order.
      assert.deepEqual(
        (await due([], 3)).map((row) => row.id),
        ['busy-00', 'busy-01', 'busy-02'],
      );
    });

    test('the projects and their due heads are read on the per-project index, not the due walk', async () => {
      await deliveries(
        'a',
        Array.from({ length: 300 }, (_, i) => [`a-${i}`, i] as [string, number]),
      );
      await deliveries('b', [['b-1', 5]]);
      // SQLite plans without statistics, as a Folio database has none; PostgreSQL gathers them.
      if (dialect === 'postgres') {
        await sql`analyze`.execute(database.db);
        await sql`set enable_seqscan = off`.execute(database.db);
      }
      const planOf = async (query: CompiledQuery) => {
        const explain = dialect === 'sqlite' ? 'explain query plan ' : 'explain ';
        const plan = await database.db.executeQuery(
          CompiledQuery.raw(explain + query.sql, [...query.parameters]),
        );
        return JSON.stringify(plan.rows);
      };
      const heads = await planOf(dueHeadsQuery(database.db, ['b', 'c'], NOW, 16).compile());
      assert.match(heads, /webhook_deliveries_project_due/, heads);
      assert.doesNotMatch(heads, /webhook_deliveries_due\b/, heads);
      if (dialect === 'sqlite') assert.match(heads, /project_id=\? AND next_attempt_at<\?/, heads);
      else assert.match(heads, /Index Cond: \(\(project_id = [^)]*\) AND \(next_attempt_at <= /, heads);
      const projects = await planOf(pendingProjectsQuery().compile(database.db));
      assert.match(projects, /webhook_deliveries_project_due/, projects);
      assert.doesNotMatch(projects, /SCAN webhook_deliveries|SCAN d\b|Seq Scan/, projects);
    });
  });
}
