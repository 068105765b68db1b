import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { DIALECTS } from '../test/databases.ts';
import { createTestApp, type TestApp } from '../test/test-app.ts';
import { pruneWebhookHistory } from './webhooks.ts';

const DAY = 86_400_000;
const RETENTION = 30 * DAY;

for (const dialect of DIALECTS) {
  describe(`the webhook log's retention [${dialect}]`, () => {
    let t: TestApp;
    let projectId: string;
    beforeEach(async () => {
      t = await createTestApp(dialect);
      projectId = (await t.createProject()).id;
    });
    afterEach(() => t.close());

    /** An event `ageDays` old, with a delivery in `status` last touched `touchedDays` ago and one attempt. */
    async function logged(id: string, ageDays: number, delivery?: { status: string; touchedDays: number }) {
      const now = t.clock.now();
      await t.db
        .insertInto('events')
        .values({
          id,
          project_id: projectId,
          type: 'content.updated',
          payload: '{}',
          created_at: now - ageDays * DAY,
        })
        .execute();
      if (!delivery) return;
      await t.db
        .insertInto('webhook_deliveries')
        .values({
          id: `dlv_${id}`,
          project_id: projectId,
          event_id: id,
          status: delivery.status as 'pending' | 'succeeded' | 'failed',
          next_attempt_at: delivery.status === 'pending' ? now : null,
          lock_token: null,
          locked_until: null,
          last_status_code: 500,
          last_error: null,
          created_at: now - ageDays * DAY,
          updated_at: now - delivery.touchedDays * DAY,
        })
        .execute();
      await t.db
        .insertInto('webhook_attempts')
        .values({
          delivery_id: `dlv_${id}`,
          attempt: 1,
          started_at: now - delivery.touchedDays * DAY,
          duration_ms: 5,
          status_code: 500,
          error: null,
          response_body: null,
        })
        .execute();
    }

    const ids = async (table: 'events' | 'webhook_deliveries') =>
      (await t.db.selectFrom(table).select('id').orderBy('id').execute()).map((row) => row.id);

    test('finished deliveries go with their events and attempts once their last attempt is older than it', async () => {
      await logged('msg_old_succeeded', 31, { status: 'succeeded', touchedDays: 31 });
      await logged('msg_old_failed', 40, { status: 'failed', touchedDays: 38 });
      await logged('msg_old_quiet', 31);
      await logged('msg_old_pending', 60, { status: 'pending', touchedDays: 59 });
      await logged('msg_old_retried_lately', 45, { status: 'succeeded', touchedDays: 2 });
      await logged('msg_recent', 29, { status: 'succeeded', touchedDays: 29 });
      await logged('msg_recent_quiet', 1);

      assert.equal(await pruneWebhookHistory({ db: t.db, now: t.clock.now }, RETENTION), 3);
      assert.deepEqual(await ids('events'), [
        'msg_old_pending',
        'msg_old_retried_lately',
        'msg_recent',
        'msg_recent_quiet',
      ]);
      assert.deepEqual(await ids('webhook_deliveries'), [
        'dlv_msg_old_pending',
        'dlv_msg_old_retried_lately',
        'dlv_msg_recent',
      ]);
      const attempts = await t.db
        .selectFrom('webhook_attempts')
        .select('delivery_id')
        .orderBy('delivery_id')
        .execute();
      assert.deepEqual(
        attempts.map((row) => row.delivery_id),
        ['dlv_msg_old_pending', 'dlv_msg_old_retried_lately', 'dlv_msg_recent'],
      );
      const log = await t.admin('GET', `/admin/v1/projects/${projectId}/webhook/deliveries`);
      assert.equal(log.json().pagination.total, 3, 'the delivery log shows what is left');
    });

    test('more than one batch is pruned in one run', async () => {
      for (let i = 0; i < 1203; i++)
        await logged(`msg_${String(i).padStart(4, '0')}`, 31, { status: 'succeeded', touchedDays: 31 });
      assert.equal(await pruneWebhookHistory({ db: t.db, now: t.clock.now }, RETENTION), 1203);
      assert.deepEqual(await ids('events'), []);
    });
  });

  describe(`a running server prunes its webhook log [${dialect}]`, () => {
    test('on its own, every quarter of FOLIO_WEBHOOK_RETENTION', async () => {
      const t = await createTestApp(dialect, { webhookRetentionMs: 4_000 });
      try {
        const projectId = (await t.createProject()).id;
        await t.db
          .insertInto('events')
          .values({
            id: 'msg_a',
            project_id: projectId,
            type: 'webhook.test',
            payload: '{}',
            created_at: t.clock.now(),
          })
          .execute();
        t.clock.advance(5_000);
        const deadline = Date.now() + 10_000;
        while ((await t.db.selectFrom('events').select('id').execute()).length > 0) {
          assert.ok(Date.now() < deadline, 'the event was not pruned within 10 s');
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      } finally {
        await t.close();
      }
    });
  });
}
