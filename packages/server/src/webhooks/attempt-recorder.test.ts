import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.ts';
import { leaseDeliveries, selectDueDeliveries } from '../store/webhook-deliveries.ts';
import { DIALECTS } from '../test/databases.ts';
import { createTestApp, newArticle } from '../test/test-app.ts';
import { createAttemptRecorder, type FinishedAttempt } from './attempt-recorder.ts';

/** `db` with a count of the transactions begun through it. */
function countingTransactions(db: Kysely<Database>): { db: Kysely<Database>; count: () => number } {
  let count = 0;
  const counted = new Proxy(db, {
    get(target, property) {
      if (property !== 'transaction') return Reflect.get(target, property, target);
      return () => {
        count++;
        return target.transaction();
      };
    },
  });
  return { db: counted, count: () => count };
}

function succeeded(deliveryId: string, projectId: string, token: string, startedAt: number): FinishedAttempt {
  return {
    deliveryId,
    projectId,
    token,
    attempt: 1,
    startedAt,
    result: { statusCode: 204, body: '', durationMs: 3 },
    outcome: {
      patch: { status: 'succeeded', next_attempt_at: null, last_status_code: 204, last_error: null },
    },
  };
}

for (const dialect of DIALECTS) {
  describe(`recording attempts in batches [${dialect}]`, () => {
    test('attempts finished together share a transaction; one whose lease another claimer took is not recorded', async (t) => {
      const app = await createTestApp(dialect);
      t.after(() => app.close());
      const projectId = (await app.createProject()).id;
      await app.admin('PUT', `/admin/v1/projects/${projectId}/webhook`, { url: 'http://127.0.0.1:9/hook' });
      await app.putArticle(projectId, 'kept', newArticle({ published: true }));
      await app.putArticle(projectId, 'taken', newArticle({ published: true }));
      const at = app.clock.now();

      // This process's claim leases both; its lease on the second then expires and another claimer takes it.
      const [kept, taken] = await app.db.transaction().execute(async (trx) => {
        const due = await selectDueDeliveries(trx, {
          now: at,
          limit: 10,
          excludeProjects: [],
          lockRows: false,
        });
        return leaseDeliveries(
          trx,
          due.map((row) => row.id),
          { token: 'ours', until: at + 1_000, now: at },
        );
      });
      assert.ok(kept && taken);
      await app.db
        .transaction()
        .execute((trx) =>
          leaseDeliveries(trx, [taken.id], { token: 'theirs', until: at + 60_000, now: at + 2_000 }),
        );

      const counting = countingTransactions(app.db);
      const record = createAttemptRecorder(counting.db, app.clock.now);
      const recorded = await Promise.all([
        record(succeeded(kept.id, projectId, 'ours', at)),
        record(succeeded(taken.id, projectId, 'ours', at)),
      ]);

      assert.deepEqual(recorded, [true, false]);
      assert.equal(counting.count(), 1, 'one transaction for both');
      const rows = await app.db
        .selectFrom('webhook_deliveries')
        .select(['id', 'status', 'attempts', 'lock_token'])
        .where('id', 'in', [kept.id, taken.id])
        .execute();
      const byId = new Map(rows.map((row) => [row.id, row]));
      assert.deepEqual(byId.get(kept.id), {
        id: kept.id,
        status: 'succeeded',
        attempts: 1,
        lock_token: null,
      });
      assert.deepEqual(
        byId.get(taken.id),
        { id: taken.id, status: 'pending', attempts: 0, lock_token: 'theirs' },
        'the holder of the lease still owns the delivery',
      );
      const attempts = await app.db.selectFrom('webhook_attempts').select('delivery_id').execute();
      assert.deepEqual(
        attempts.map((row) => row.delivery_id),
        [kept.id],
      );
    });
  });
}
