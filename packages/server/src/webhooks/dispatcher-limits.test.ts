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
  });
}
