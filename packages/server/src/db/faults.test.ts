import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { listEvents } from '../test/assertions.ts';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../test/databases.ts';
import { type Receiver, startReceiver } from '../test/receiver.ts';
import {
  freePort,
  type JsonAnswer,
  kill,
  requestJson,
  type ServerProcess,
  startServer,
} from '../test/server-process.ts';
import { startTcpProxy, type TcpProxy } from '../test/tcp-proxy.ts';

/*
 * A production database goes away: a failover terminates every backend, a network blip cuts
 * every connection. A real server process must stay up, answer 503 `unavailable` (JSON, with
 * Retry-After) while it cannot reach the database, recover by itself, and lose nothing it
 * acknowledged. PostgreSQL only: the embedded SQLite file has no connection to lose.
 */

const ADMIN_TOKEN = 'faults-test-admin-token-0123';

const cleanups: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Answer = JsonAnswer;

interface Folio {
  process: ServerProcess;
  request(method: string, path: string, token: string, body?: unknown): Promise<Answer>;
}

async function startFolio(databaseUrl: string, env: Record<string, string> = {}): Promise<Folio> {
  const port = await freePort();
  const process = await startServer({
    ...env,
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    FOLIO_ADMIN_TOKEN: ADMIN_TOKEN,
    FOLIO_DEMO: 'false',
    FOLIO_WEBHOOK_ALLOW_PRIVATE: 'true',
    FOLIO_WEBHOOK_TIMEOUT: '1s',
    FOLIO_WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s,1s,1s,1s,1s,1s',
  });
  cleanups.push(() => kill(process));
  return {
    process,
    request: (method, path, token, body) => requestJson(port, method, path, token, body),
  };
}

async function freshDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase('postgres');
  cleanups.push(() => database.close());
  return database;
}

async function newReceiver(): Promise<Receiver> {
  const receiver = await startReceiver();
  cleanups.push(() => receiver.close());
  return receiver;
}

/** A project with a webhook to `receiver` and a content key. */
async function setUpProject(folio: Folio, receiver: Receiver): Promise<{ projectId: string; key: string }> {
  const project = await folio.request('POST', '/admin/v1/projects', ADMIN_TOKEN, { name: 'Faults' });
  assert.equal(project.status, 201);
  const projectId = (project.body!.data as { id: string }).id;
  const hook = await folio.request('PUT', `/admin/v1/projects/${projectId}/webhook`, ADMIN_TOKEN, {
    url: receiver.url,
  });
  assert.equal(hook.status, 200);
  const key = await folio.request('POST', `/admin/v1/projects/${projectId}/keys`, ADMIN_TOKEN, {
    name: 'site',
  });
  assert.equal(key.status, 201);
  return { projectId, key: (key.body!.data as { key: string }).key };
}

function publish(folio: Folio, projectId: string, id: string): Promise<Answer> {
  return folio.request('PUT', `/admin/v1/projects/${projectId}/articles/${id}`, ADMIN_TOKEN, {
    slug: id,
    title: `Article ${id}`,
    blocks: [{ type: 'paragraph', content: [{ text: `The body of ${id}.` }] }],
    published: true,
  });
}

/** A 503 in the contract's shape: JSON `unavailable` with a Retry-After of whole seconds. */
function assertUnavailable(answer: Answer, what: string): void {
  assert.equal(answer.status, 503, `${what}: ${JSON.stringify(answer.body)}`);
  assert.equal(answer.body?.success, false, what);
  assert.equal(answer.body?.error?.code, 'unavailable', what);
  assert.match(answer.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/, `${what}: Retry-After`);
}

async function eventually(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function assertAlive(folio: Folio): void {
  assert.equal(folio.process.child.exitCode, null, `the server exited:\n${folio.process.output()}`);
  assert.equal(folio.process.child.signalCode, null, `the server was killed:\n${folio.process.output()}`);
  assert.doesNotMatch(folio.process.output(), /Unhandled|uncaught/i);
}

/** What a failed request would answer, so one fetch failing does not end a loop early. */
async function attempt(work: () => Promise<Answer>): Promise<Answer> {
  try {
    return await work();
  } catch (error) {
    return { status: 0, headers: new Headers(), body: { success: false, error: { code: String(error) } } };
  }
}

/**
 * A server on a fresh database reached through a TCP proxy the test can cut or freeze, with a
 * project, a webhook receiver and one article published before the fault.
 */
async function behindProxy(env: Record<string, string> = {}) {
  const database = await freshDatabase();
  const target = new URL(database.location.databaseUrl!);
  const proxy: TcpProxy = await startTcpProxy({ host: target.hostname, port: Number(target.port) });
  cleanups.push(() => proxy.close());
  const viaProxy = new URL(target);
  viaProxy.port = String(proxy.port);
  const folio = await startFolio(viaProxy.toString(), env);
  const receiver = await newReceiver();
  const { projectId, key } = await setUpProject(folio, receiver);
  assert.equal((await publish(folio, projectId, 'before')).status, 201);
  return { proxy, folio, receiver, projectId, key };
}

/** Once the database is back: ready again, and a write is served, with no restart. */
async function recovers(folio: Folio, projectId: string, key: string): Promise<void> {
  await eventually('readyz', async () => (await folio.request('GET', '/readyz', '')).status === 200);
  assert.equal((await publish(folio, projectId, 'after')).status, 201);
  assert.equal(
    (await folio.request('GET', `/api/v1/projects/${projectId}/content/by-slug/after`, key)).status,
    200,
  );
}

describe('database faults (postgres)', { skip: !DIALECTS.includes('postgres') }, () => {
  test('terminating every backend under concurrent writes and reads: the server stays up and keeps every acknowledged write with its event', async () => {
    const database = await freshDatabase();
    const folio = await startFolio(database.location.databaseUrl!);
    const receiver = await newReceiver();
    const { projectId, key } = await setUpProject(folio, receiver);

    const terminator = new pg.Client({ connectionString: database.location.databaseUrl });
    terminator.on('error', () => {});
    await terminator.connect();

    const acknowledged: string[] = [];
    const writeStatuses = new Map<number, number>();
    const readStatuses = new Map<number, number>();
    const count = (map: Map<number, number>, status: number) => map.set(status, (map.get(status) ?? 0) + 1);
    let running = true;
    let terminations = 0;

    const writer = async (n: number) => {
      for (let i = 0; running; i++) {
        const id = `w${n}-${i}`;
        const answer = await attempt(() => publish(folio, projectId, id));
        count(writeStatuses, answer.status);
        if (answer.status === 201) acknowledged.push(id);
        else assertUnavailable(answer, `PUT ${id}`);
      }
    };
    const reader = async () => {
      while (running) {
        const slug = acknowledged.at(-1) ?? 'none-yet';
        for (const path of [
          `/api/v1/projects/${projectId}/content?limit=5`,
          `/api/v1/projects/${projectId}/content/by-slug/${slug}`,
        ]) {
          const answer = await attempt(() => folio.request('GET', path, key));
          count(readStatuses, answer.status);
          if (answer.status >= 500 || answer.status === 0) assertUnavailable(answer, `GET ${path}`);
        }
      }
    };
    const terminate = async () => {
      while (running) {
        const { rows } = await terminator.query<{ n: string }>(
          `select count(pg_terminate_backend(pid)) as n from pg_stat_activity
           where datname = current_database() and pid <> pg_backend_pid()`,
        );
        terminations += Number(rows[0]!.n);
        // Every 100 ms for the first seconds; then more slowly, so that on a machine where a
        // write takes longer than that some still get through between terminations.
        await new Promise((resolve) => setTimeout(resolve, elapsed() < 4_000 ? 100 : 400));
      }
    };

    const started = Date.now();
    const elapsed = () => Date.now() - started;
    // The first failure stops every loop, and is the test's.
    const failures: unknown[] = [];
    const workers = [...Array.from({ length: 6 }, (_, n) => writer(n)), reader(), reader(), terminate()].map(
      (work) =>
        work.catch((error: unknown) => {
          failures.push(error);
          running = false;
        }),
    );
    // Four seconds of terminations at least, then on until five writes got through, within a
    // bound: a slower machine gets fewer through each second, and what the test proves (nothing
    // acknowledged is lost) needs acknowledged writes to check.
    while (elapsed() < 4_000 || (acknowledged.length < 5 && elapsed() < 30_000)) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    running = false;
    await Promise.all(workers);
    await terminator.end();
    if (failures.length > 0) throw failures[0];

    assertAlive(folio);
    assert.ok(terminations >= 20, `only ${terminations} backends were terminated`);
    assert.ok(
      acknowledged.length >= 5,
      `only ${acknowledged.length} writes succeeded: ${[...writeStatuses]}`,
    );

    // Every acknowledged write is stored, published, with its event; and each event is delivered.
    const stored = await database.db
      .selectFrom('articles')
      .select(['id', 'published_at'])
      .where('project_id', '=', projectId)
      .execute();
    const published = new Set(stored.filter((row) => row.published_at !== null).map((row) => row.id));
    for (const id of acknowledged) assert.ok(published.has(id), `acknowledged ${id} is not published`);
    const created = new Set(
      (await listEvents(database.db))
        .filter((event) => event.type === 'content.created')
        .map((event) => String(event.payload.data.id)),
    );
    for (const id of acknowledged) assert.ok(created.has(id), `acknowledged ${id} has no event`);
    await eventually('every event delivered', () => {
      const delivered = new Set(receiver.received.map((r) => String(r.json.data.id)));
      return acknowledged.every((id) => delivered.has(id));
    });

    // Recovered by itself: reads and writes answer normally again.
    await eventually(
      'readyz',
      async () => (await attempt(() => folio.request('GET', '/readyz', ''))).status === 200,
    );
    assert.equal((await publish(folio, projectId, 'after')).status, 201);
    const read = await folio.request('GET', `/api/v1/projects/${projectId}/content/by-slug/after`, key);
    assert.equal(read.status, 200);
    assertAlive(folio);
  });

  test('an outage: /readyz and requests that need the database answer 503 with Retry-After; recovery needs no restart', async () => {
    const { proxy, folio, receiver, projectId, key } = await behindProxy();

    proxy.cut();
    assertUnavailable(await folio.request('GET', '/readyz', ''), 'readyz');
    assertUnavailable(
      await folio.request('GET', `/api/v1/projects/${projectId}/content/by-slug/never-read`, key),
      'by-slug',
    );
    assertUnavailable(
      await folio.request('GET', `/api/v1/projects/${projectId}/content?page=7`, key),
      'list',
    );
    assertUnavailable(await publish(folio, projectId, 'during'), 'write');
    assertUnavailable(await folio.request('GET', '/admin/v1/projects', ADMIN_TOKEN), 'admin list');
    // Still alive a while later, with the dispatcher and the change feed failing in the background.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    assertAlive(folio);

    proxy.restore();
    await recovers(folio, projectId, key);
    // The write refused during the outage left nothing behind.
    assert.equal(
      (await folio.request('GET', `/api/v1/projects/${projectId}/content/by-slug/during`, key)).status,
      404,
    );
    await eventually('both events delivered', () => {
      const delivered = new Set(receiver.received.map((r) => String(r.json.data.id)));
      return delivered.has('before') && delivered.has('after');
    });
    assertAlive(folio);
  });
  test('a frozen network: /readyz says so well before requests give up on the database', {
    timeout: 60_000,
  }, async () => {
    // Requests wait the default 15 s; a load balancer's health check gives up long before.
    const { proxy, folio, projectId, key } = await behindProxy();
    proxy.freeze();
    for (let round = 0; round < 2; round++) {
      const started = performance.now();
      const answer = await attempt(() => folio.request('GET', '/readyz', ''));
      const ms = performance.now() - started;
      assertUnavailable(answer, `readyz, round ${round}`);
      // Its own bound, and then some for a busy machine; far from the requests' 15 s.
      assert.ok(ms < 7_500, `readyz took ${Math.round(ms)} ms`);
    }
    proxy.restore();
    await recovers(folio, projectId, key);
    assertAlive(folio);
  });

  // The timeout turns a regression (requests held for good) into a failure rather than a hang.
  test('a frozen network: every request that needs the database answers 503 within one timeout', {
    timeout: 90_000,
  }, async () => {
    const timeoutMs = 2_000;
    const { proxy, folio, projectId, key } = await behindProxy({ FOLIO_DATABASE_TIMEOUT: `${timeoutMs}ms` });

    // Connections stay open and take requests, but nothing comes back: without a deadline,
    // every request that needed the database waited for good. With one on each wait alone
    // (a pooled connection, a new one, each statement, the change token), a request waited
    // out several in a row.
    proxy.freeze();
    // Rounds: the first meets open connections, later ones a pool whose connections were
    // dropped and whose new ones never finish connecting.
    for (let round = 0; round < 3; round++) {
      const asked = [
        () => folio.request('GET', `/api/v1/projects/${projectId}/content/by-slug/never-read-${round}`, key),
        () => folio.request('GET', '/admin/v1/projects', ADMIN_TOKEN),
        () => publish(folio, projectId, `during-${round}`),
        () => folio.request('GET', '/readyz', ''),
        // More than the pool holds, each a different URL, so none is answered from the cache.
        ...Array.from(
          { length: 12 },
          (_, i) => () => folio.request('GET', `/api/v1/projects/${projectId}/content?limit=${i + 1}`, key),
        ),
      ];
      const answers = await Promise.all(
        asked.map(async (ask) => {
          const started = performance.now();
          const answer = await attempt(ask);
          return { answer, ms: performance.now() - started };
        }),
      );
      for (const [i, { answer, ms }] of answers.entries()) {
        assertUnavailable(answer, `round ${round}, request ${i} while frozen`);
        // The bound, and then some for a busy machine, but less than a second bound.
        assert.ok(ms < timeoutMs * 1.75, `round ${round}, request ${i} took ${Math.round(ms)} ms`);
      }
    }
    assertAlive(folio);

    proxy.restore();
    await recovers(folio, projectId, key);
    assertAlive(folio);
  });
});
