import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startReceiver } from '../test/receiver.ts';
import { createTestApp, newArticle } from '../test/test-app.ts';

test('a wake-up that arrives while the dispatcher is claiming is not lost', async (t) => {
  // A poll far beyond the test's patience: only wake-ups can get the delivery sent.
  const app = await createTestApp('sqlite', {
    clockStart: Date.now(),
    dispatcher: { pollIntervalMs: 60_000 },
  });
  const receiver = await startReceiver();
  t.after(async () => {
    await receiver.close();
    await app.close();
  });
  const project = await app.createProject();
  await app.admin('PUT', `/admin/v1/projects/${project.id}/webhook`, { url: receiver.url });
  await app.putArticle(project.id, 'woken', newArticle({ published: true }));

  // The first claim runs at a time before the delivery is due, so it finds nothing...
  app.clock.advance(-1_000);
  app.dispatcher.start();
  // ...and while that claim is still under way, the delivery becomes due and a wake-up comes.
  app.clock.advance(1_000);
  app.dispatcher.wake();

  const [request] = await receiver.waitFor(1, 3_000);
  assert.equal(request?.json.event, 'content.created');
});

test('a delivery is sent only once every server process serves its change', async (t) => {
  let settles = 0;
  const settled = Promise.withResolvers<void>();
  const app = await createTestApp('sqlite', {
    clockStart: Date.now(),
    dispatcher: {
      settle: () => {
        settles++;
        return settled.promise;
      },
    },
  });
  const receiver = await startReceiver();
  t.after(async () => {
    settled.resolve();
    await receiver.close();
    await app.close();
  });
  const project = await app.createProject();
  await app.admin('PUT', `/admin/v1/projects/${project.id}/webhook`, { url: receiver.url });
  await app.putArticle(project.id, 'held', newArticle({ published: true }));
  const run = app.dispatcher.runOnce();
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(settles, 1);
  assert.equal(receiver.received.length, 0, 'nothing sent before the change is served everywhere');
  settled.resolve();
  assert.equal(await run, 1);
  assert.equal(receiver.received[0]?.json.event, 'content.created');
});
