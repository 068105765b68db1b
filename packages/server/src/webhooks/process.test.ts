import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { DialectName } from '../db/connect.ts';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../test/databases.ts';
import { type Received, type Receiver, startReceiver } from '../test/receiver.ts';
import {
  freePort,
  kill,
  requestJson,
  type ServerProcess,
  startServer,
  stop,
} from '../test/server-process.ts';

/*
 * The webhook guarantees that only show with real processes: a server killed with SIGKILL
 * loses nothing, SIGTERM lets a delivery in flight finish, two servers on one PostgreSQL
 * database send each attempt once, and a dead receiver does not hold up another project.
 */

const ADMIN_TOKEN = 'process-test-admin-token-0123';

interface Delivery {
  id: string;
  webhookId: string;
  event: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  lastStatusCode: number | null;
  log: Array<{ attempt: number; statusCode: number | null; error: string | null }>;
}

/** A running server with the management API at hand. */
interface Folio {
  process: ServerProcess;
  port: number;
  api(method: string, path: string, body?: unknown): Promise<{ status: number; data: unknown }>;
}

const cleanups: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function serverEnv(database: TestDatabase, webhook: { timeout: string; schedule: string }) {
  return {
    ...(database.location.databaseUrl
      ? { DATABASE_URL: database.location.databaseUrl }
      : { FOLIO_DATA_DIR: database.location.dataDir }),
    FOLIO_ADMIN_TOKEN: ADMIN_TOKEN,
    FOLIO_DEMO: 'false',
    FOLIO_WEBHOOK_ALLOW_PRIVATE: 'true',
    FOLIO_WEBHOOK_TIMEOUT: webhook.timeout,
    FOLIO_WEBHOOK_RETRY_SCHEDULE: webhook.schedule,
  };
}

async function startFolio(env: Record<string, string>): Promise<Folio> {
  const port = await freePort();
  const process = await startServer({ ...env, PORT: String(port) });
  cleanups.push(() => kill(process));
  return {
    process,
    port,
    async api(method, path, body) {
      const answer = await requestJson(port, method, `/admin/v1${path}`, ADMIN_TOKEN, body);
      return { status: answer.status, data: answer.body?.data };
    },
  };
}

async function freshDatabase(dialect: DialectName): Promise<TestDatabase> {
  const database = await createTestDatabase(dialect);
  cleanups.push(() => database.close());
  return database;
}

async function newReceiver(): Promise<Receiver> {
  const receiver = await startReceiver();
  cleanups.push(() => receiver.close());
  return receiver;
}

/** A project whose webhook points at `receiver`, signed with a secret the receiver holds. */
async function createHookedProject(folio: Folio, receiver: Receiver): Promise<string> {
  const project = await folio.api('POST', '/projects', { name: 'Process test' });
  assert.equal(project.status, 201);
  const projectId = (project.data as { id: string }).id;
  assert.equal((await folio.api('PUT', `/projects/${projectId}/webhook`, { url: receiver.url })).status, 200);
  const reveal = await folio.api('POST', `/projects/${projectId}/webhook/reveal-secret`);
  receiver.secrets.push((reveal.data as { secret: string }).secret);
  return projectId;
}

/** Publishes an article; resolves when the server answered, i.e. the change committed. */
async function publish(folio: Folio, projectId: string, id: string): Promise<void> {
  const response = await folio.api('PUT', `/projects/${projectId}/articles/${id}`, {
    slug: id,
    title: `Article ${id}`,
    blocks: [{ type: 'paragraph', content: [{ text: `The body of ${id}.` }] }],
    published: true,
  });
  assert.equal(response.status, 201, `publish ${id}`);
}

async function listDeliveries(folio: Folio, projectId: string): Promise<Delivery[]> {
  const response = await folio.api('GET', `/projects/${projectId}/webhook/deliveries?limit=100`);
  assert.equal(response.status, 200);
  return response.data as Delivery[];
}

/** Polls `check` until it returns true. */
async function eventually(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function createdIds(received: Received[]): Set<string> {
  return new Set(
    received.filter((r) => r.json.event === 'content.created').map((r) => String(r.json.data.id)),
  );
}

function articleIds(count: number, prefix: string): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}-${i + 1}`);
}

for (const dialect of DIALECTS) {
  describe(`crash safety (${dialect})`, () => {
    test('after SIGKILL with deliveries in flight and pending, a restart delivers every committed event', async () => {
      const database = await freshDatabase(dialect);
      // A 1 s timeout gives a 7 s lease: a delivery the killed process held is sent again after that.
      // 4 in flight per project leaves some of the 10 deliveries waiting.
      const env = {
        ...serverEnv(database, { timeout: '1s', schedule: '1s,1s,1s' }),
        FOLIO_WEBHOOK_CONCURRENCY: '4',
      };
      const receiver = await newReceiver();
      receiver.fallback = { status: 204, delayMs: 5_000 };
      const first = await startFolio(env);
      const projectId = await createHookedProject(first, receiver);

      const ids = articleIds(10, 'crash');
      for (const id of ids) await publish(first, projectId, id);
      await receiver.waitFor(1);
      await kill(first.process);

      // The scenario this test is about: some deliveries held by the dead process, some not sent.
      const rows = await database.db
        .selectFrom('webhook_deliveries')
        .select(['status', 'lock_token'])
        .where('project_id', '=', projectId)
        .execute();
      assert.equal(rows.length, ids.length, 'every committed change has its delivery');
      assert.ok(
        rows.some((row) => row.status === 'pending' && row.lock_token !== null),
        'some deliveries were in flight',
      );
      assert.ok(
        rows.some((row) => row.status === 'pending' && row.lock_token === null),
        'some deliveries were still pending',
      );

      receiver.fallback = { status: 204 };
      const second = await startFolio(env);
      await eventually(
        'every article at the receiver',
        () => createdIds(receiver.received).size === ids.length,
      );
      assert.deepEqual([...createdIds(receiver.received)].sort(), [...ids].sort());
      for (const request of receiver.received) {
        assert.deepEqual(request.verified, [true], 'signed with the revealed secret');
      }
      const webhookIds = new Map<string, Set<string>>();
      for (const request of receiver.received) {
        const id = String(request.json.data.id);
        webhookIds.set(id, (webhookIds.get(id) ?? new Set()).add(String(request.headers['webhook-id'])));
      }
      for (const [id, seen] of webhookIds) assert.equal(seen.size, 1, `${id}: one webhook-id on every send`);

      await eventually('the log to show every delivery succeeded', async () =>
        (await listDeliveries(second, projectId)).every((delivery) => delivery.status === 'succeeded'),
      );
      assert.equal(await stop(second.process), 0);
    });

    test('SIGTERM lets a delivery in flight finish, then exits 0; the log records it', async () => {
      const database = await freshDatabase(dialect);
      const env = serverEnv(database, { timeout: '5s', schedule: '1s' });
      const receiver = await newReceiver();
      receiver.fallback = { status: 204, delayMs: 1_000 };
      const first = await startFolio(env);
      const projectId = await createHookedProject(first, receiver);

      await publish(first, projectId, 'in-flight');
      const [request] = await receiver.waitFor(1);
      const signalledAt = Date.now();
      first.process.child.kill('SIGTERM');
      assert.equal(await first.process.exited, 0, 'a clean exit');
      const exitedAt = Date.now();
      assert.ok(exitedAt >= request!.at + 1_000, 'the process waited for the receiver to answer');
      assert.ok(
        exitedAt - signalledAt < 10_000,
        `exited within the grace, after ${exitedAt - signalledAt} ms`,
      );

      const second = await startFolio(env);
      const [delivery] = await listDeliveries(second, projectId);
      assert.equal(delivery?.status, 'succeeded');
      assert.equal(delivery.attempts, 1);
      assert.deepEqual(
        delivery.log.map((entry) => entry.statusCode),
        [204],
      );
      assert.equal(receiver.received.length, 1, 'sent once: nothing left to send again');
      assert.equal(await stop(second.process), 0);
    });
  });
}

describe('SIGTERM with a receiver that does not answer', () => {
  test('the wait for deliveries in flight is bounded by the shutdown grace, not the attempt timeout', async () => {
    const database = await freshDatabase('sqlite');
    const env = serverEnv(database, { timeout: '60s', schedule: '1s' });
    const receiver = await newReceiver();
    receiver.fallback = { status: 204, delayMs: 60_000 };
    const folio = await startFolio(env);
    const projectId = await createHookedProject(folio, receiver);

    await publish(folio, projectId, 'stuck');
    await receiver.waitFor(1);
    const signalledAt = Date.now();
    folio.process.child.kill('SIGTERM');
    assert.equal(await folio.process.exited, 0);
    const waited = Date.now() - signalledAt;
    // main.ts: SHUTDOWN_GRACE_MS = 10 s; past 15 s the process would be cut short with exit code 1.
    assert.ok(waited >= 9_000 && waited < 15_000, `waited ${waited} ms`);
  });
});

if (DIALECTS.includes('postgres')) {
  describe('two server processes on one PostgreSQL database', () => {
    test('each event is sent exactly once per attempt', async () => {
      const database = await freshDatabase('postgres');
      // At info level each process logs the attempts it made.
      const env = { ...serverEnv(database, { timeout: '2s', schedule: '1s,1s,1s' }), LOG_LEVEL: 'info' };
      const receiver = await newReceiver();
      const [a, b] = await Promise.all([startFolio(env), startFolio(env)]);
      const projectId = await createHookedProject(a!, receiver);

      const ids = articleIds(30, 'shared');
      await Promise.all(ids.map((id, i) => publish(i % 2 === 0 ? a! : b!, projectId, id)));
      await receiver.waitFor(ids.length);
      // Long enough for a second claim of anything to show up.
      await new Promise((resolve) => setTimeout(resolve, 2_000));

      const perWebhookId = new Map<string, number>();
      for (const request of receiver.received) {
        const id = String(request.headers['webhook-id']);
        perWebhookId.set(id, (perWebhookId.get(id) ?? 0) + 1);
        assert.deepEqual(request.verified, [true]);
      }
      assert.equal(perWebhookId.size, ids.length);
      assert.deepEqual(
        [...perWebhookId.values()].filter((count) => count !== 1),
        [],
        'no event sent twice',
      );
      assert.deepEqual([...createdIds(receiver.received)].sort(), [...ids].sort());

      const deliveries = await listDeliveries(b!, projectId);
      assert.equal(deliveries.length, ids.length);
      for (const delivery of deliveries) {
        assert.equal(delivery.status, 'succeeded', delivery.id);
        assert.equal(delivery.attempts, 1, delivery.id);
        assert.equal(delivery.log.length, 1, delivery.id);
      }
      const attemptsBy = [a!, b!].map(
        (folio) => folio.process.output().match(/"msg":"webhook delivery attempt"/g)?.length ?? 0,
      );
      assert.equal(attemptsBy[0]! + attemptsBy[1]!, ids.length);
      assert.ok(
        attemptsBy.every((count) => count > 0),
        `both processes delivered: ${attemptsBy.join(' + ')}`,
      );
      assert.deepEqual(await Promise.all([stop(a!.process), stop(b!.process)]), [0, 0]);
    });
  });
}

describe('isolation between projects', () => {
  test("a receiver that never answers does not delay another project's delivery", async () => {
    const database = await freshDatabase('sqlite');
    // 4 per project leaves the process 16 slots in all (its floor).
    const env = {
      ...serverEnv(database, { timeout: '3s', schedule: '1s,1s,1s' }),
      FOLIO_WEBHOOK_CONCURRENCY: '4',
    };
    const dead = await newReceiver();
    dead.fallback = { status: 204, delayMs: 30_000 };
    const alive = await newReceiver();
    const folio = await startFolio(env);
    const projectA = await createHookedProject(folio, dead);
    const projectB = await createHookedProject(folio, alive);

    // More than the 16 deliveries the process sends at once: without the per-project limit,
    // project A would take every slot.
    const ids = articleIds(20, 'slow');
    for (const id of ids) await publish(folio, projectA, id);
    await dead.waitFor(1);
    const sentAt = Date.now();
    await publish(folio, projectB, 'fast');
    const [arrived] = await alive.waitFor(1, 5_000);
    const latency = arrived!.at - sentAt;
    assert.ok(latency < 1_000, `project B's delivery took ${latency} ms`);
    assert.ok(arrived!.at < dead.received[0]!.at + 3_000, "before project A's first attempt timed out");
    const pendingA = (await listDeliveries(folio, projectA)).filter(
      (delivery) => delivery.status === 'pending' && delivery.attempts === 0,
    );
    assert.ok(pendingA.length > 0, 'project A still had deliveries waiting');
    assert.equal(await stop(folio.process), 0);
  });
});
