import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import type { Logger } from 'pino';
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

test('a retry goes out on its time, not at the next poll', async (t) => {
  // The dispatcher on the real clock with a poll far beyond the test's patience: only the retry's
  // own time can wake it.
  const app = await createTestApp('sqlite', {
    clockStart: Date.now(),
    dispatcher: { now: Date.now, pollIntervalMs: 60_000, retryScheduleMs: [300] },
  });
  const receiver = await startReceiver();
  t.after(async () => {
    await receiver.close();
    await app.close();
  });
  receiver.replies = [{ status: 500 }];
  const project = await app.createProject();
  await app.admin('PUT', `/admin/v1/projects/${project.id}/webhook`, { url: receiver.url });
  app.dispatcher.start();
  await app.putArticle(project.id, 'retried', newArticle({ published: true }));
  app.dispatcher.wake();
  // Well before the next poll; not before its time (the test app's random 0 means no jitter).
  const [first, second] = await receiver.waitFor(2, 10_000);
  const gap = second!.at - first!.at;
  assert.ok(gap >= 290, `the retry came ${gap} ms after the first attempt`);
});

test('claims that keep failing (the database gone) are logged once, and so is their end', async (t) => {
  const lines: string[] = [];
  const note = (_fields: unknown, message: string) => lines.push(message);
  const logger = { error: note, info: note, warn: note } as unknown as Logger;
  const app = await createTestApp('sqlite', { dispatcher: { pollIntervalMs: 5, logger } });
  t.after(() => app.close());
  // Every claim fails as it would with the database gone: the table it reads is not there.
  await sql`alter table webhook_deliveries rename to webhook_deliveries_gone`.execute(app.db);
  app.dispatcher.start();
  await new Promise((resolve) => setTimeout(resolve, 200));
  await sql`alter table webhook_deliveries_gone rename to webhook_deliveries`.execute(app.db);
  const deadline = Date.now() + 3_000;
  while (lines.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(lines, [
    'claiming webhook deliveries failed; retrying',
    'claiming webhook deliveries works again',
  ]);
});
