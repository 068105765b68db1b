import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { DIALECTS } from '../test/databases.ts';
import { startReceiver } from '../test/receiver.ts';
import { createTestApp, newArticle } from '../test/test-app.ts';

for (const dialect of DIALECTS) {
  describe(`per-project concurrency [${dialect}]`, () => {
    test('with a limit of 3, one project never has more than 3 deliveries in flight, and does use 3', async (t) => {
      const app = await createTestApp(dialect, {
        clockStart: Date.now(),
        dispatcher: { perProjectConcurrency: 3 },
      });
      const receiver = await startReceiver();
      t.after(async () => {
        await receiver.close();
        await app.close();
      });
      let open = 0;
      let most = 0;
      receiver.onReceive = async () => {
        open++;
        most = Math.max(most, open);
        // A receiver that takes a moment, so deliveries overlap when the dispatcher lets them.
        await delay(50);
        open--;
      };
      const project = await app.createProject();
      await app.admin('PUT', `/admin/v1/projects/${project.id}/webhook`, { url: receiver.url });
      for (let i = 0; i < 10; i++) await app.putArticle(project.id, `a${i}`, newArticle({ published: true }));

      assert.equal(await app.dispatcher.runOnce(), 3, 'one claim takes 3 of the 10 due');
      app.dispatcher.start();
      await receiver.waitFor(10, 10_000);
      assert.equal(most, 3);
    });

    test('receivers that hang hold a few slots each, not all of them: other projects are delivered meanwhile', async (t) => {
      // Room for two projects at full pace, and attempts that outlast the test.
      const app = await createTestApp(dialect, {
        clockStart: Date.now(),
        dispatcher: { perProjectConcurrency: 8, concurrency: 16, timeoutMs: 60_000 },
      });
      const hanging = await startReceiver();
      const answering = await startReceiver();
      t.after(async () => {
        await app.dispatcher.stop(0);
        await hanging.close();
        await answering.close();
        await app.close();
      });
      hanging.fallback = { status: 204, delayMs: 60_000 };
      for (const receiver of [hanging, hanging, hanging, answering]) {
        const project = await app.createProject();
        await app.admin('PUT', `/admin/v1/projects/${project.id}/webhook`, { url: receiver.url });
        for (let i = 0; i < 10; i++)
          await app.putArticle(project.id, `a${i}`, newArticle({ published: true }));
      }
      app.dispatcher.start();
      await answering.waitFor(10, 10_000);
      // Four in flight for each hanging project, as for any new one, and no more while they hang.
      await hanging.waitFor(12, 10_000);
      assert.equal(hanging.received.length, 12);
    });

    test('a failing project sends one at a time; each success after it doubles its pace', async (t) => {
      const app = await createTestApp(dialect, {
        clockStart: Date.now(),
        dispatcher: { perProjectConcurrency: 8 },
      });
      const receiver = await startReceiver();
      t.after(async () => {
        await receiver.close();
        await app.close();
      });
      const project = await app.createProject();
      await app.admin('PUT', `/admin/v1/projects/${project.id}/webhook`, { url: receiver.url });
      for (let i = 0; i < 12; i++) await app.putArticle(project.id, `a${i}`, newArticle({ published: true }));

      receiver.fallback = { status: 500 };
      assert.equal(await app.dispatcher.runOnce(), 4, 'a project not heard from yet opens at 4');
      app.clock.advance(60_000);
      assert.equal(await app.dispatcher.runOnce(), 1, 'after a failure, one at a time');
      receiver.fallback = { status: 204 };
      const paces = [];
      for (let sent = await app.dispatcher.runOnce(); sent > 0; sent = await app.dispatcher.runOnce()) {
        paces.push(sent);
      }
      assert.deepEqual(paces, [1, 2, 8], 'back to full pace (8) after three answers');
    });
  });
}
