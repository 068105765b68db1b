import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createTestDatabase, DIALECTS } from './test/databases.ts';
import { startReceiver } from './test/receiver.ts';
import {
  freePort,
  kill,
  MAIN,
  requestJson,
  SERVER_NODE_FLAGS,
  startServer,
  stop,
} from './test/server-process.ts';
import { FOLIO_VERSION } from './version.ts';

describe('first start on the embedded database', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-main-'));
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  test('prints the admin token, the demo project, a key and a curl line that lists the demo articles', async () => {
    const port = await freePort();
    const server = await startServer({ PORT: String(port), FOLIO_DATA_DIR: dataDir });
    try {
      const output = server.output();
      assert.match(output, /folio_admin_[A-Za-z0-9_-]{43}/);
      assert.match(
        output,
        new RegExp(
          `Dashboard: http://localhost:${port}/dashboard\\n\\s+Sign in with the admin token above\\.`,
        ),
      );
      const key = /Demo content key \(shown once\): (folio_ck_\S+)/.exec(output)?.[1];
      const projectId = /Demo project id: (\S+)/.exec(output)?.[1];
      assert.ok(key && projectId, output);
      const curl = /curl -H 'Authorization: Bearer (\S+)' '([^']+)'/.exec(output);
      assert.ok(curl, 'a ready-to-paste curl line');
      assert.equal(curl[1], key);

      const response = await fetch(curl[2]!, { headers: { authorization: `Bearer ${curl[1]}` } });
      assert.equal(response.status, 200);
      const body = (await response.json()) as { data: unknown[]; pagination: { total: number } };
      assert.ok(body.pagination.total >= 10, `about a dozen demo articles, got ${body.pagination.total}`);

      const all = await fetch(`http://127.0.0.1:${port}/api/v1/projects/${projectId}/content?limit=100`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const types = new Set(
        ((await all.json()) as { data: { blocks: { type: string }[] }[] }).data.flatMap((a) =>
          a.blocks.map((b) => b.type),
        ),
      );
      assert.equal(types.size, 11, `demo articles use every block type: ${[...types].join(', ')}`);
    } finally {
      assert.equal(await stop(server), 0, 'SIGTERM shuts down cleanly');
    }
  });

  test('a second start reuses the data and prints no new secrets', async () => {
    const port = await freePort();
    const server = await startServer({ PORT: String(port), FOLIO_DATA_DIR: dataDir });
    try {
      const output = server.output();
      assert.doesNotMatch(output, /folio_admin_|folio_ck_/);
      assert.match(output, new RegExp(`Dashboard: http://localhost:${port}/dashboard\\n`));
      assert.match(output, /Sign in with the admin token printed at the first start/);
      assert.match(output, /Lost it\? Run `folio admin-token reset` \(or set FOLIO_ADMIN_TOKEN\)/);
    } finally {
      assert.equal(await stop(server), 0);
    }
  });
});

describe('the log at LOG_LEVEL=info', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-main-'));
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  test('states the version and the database at start, then one line per request', async () => {
    const port = await freePort();
    const server = await startServer({ PORT: String(port), FOLIO_DATA_DIR: dataDir, LOG_LEVEL: 'info' });
    const json = () =>
      server
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    try {
      const answer = await fetch(`http://127.0.0.1:${port}/nothing/here?key=folio_ck_secret`);
      assert.equal(answer.status, 404);
      const id = answer.headers.get('x-request-id');
      // The log is written asynchronously; the banner may come first.
      let mine: Record<string, unknown>[] = [];
      for (let i = 0; i < 40 && mine.length === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        mine = json().filter((line) => line.reqId === id);
      }
      const started = json().find((line) => line.msg === 'Folio started');
      assert.ok(started, server.output());
      assert.equal(started.version, FOLIO_VERSION);
      assert.equal(started.database, 'sqlite');
      assert.equal(mine.length, 1, server.output());
      assert.equal(mine[0]!.path, '/nothing/here');
      assert.equal(mine[0]!.status, 404);
      assert.doesNotMatch(server.output(), /incoming request|folio_ck_secret/);
    } finally {
      assert.equal(await stop(server), 0);
    }
  });
});

describe('start-up problems', () => {
  test('a bad value stops start-up with one line naming the variable', async () => {
    const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, MAIN], {
      env: { ...process.env, PORT: 'eighty' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 2);
    assert.equal(stderr.trim().split('\n').length, 1);
    assert.match(stderr, /PORT="eighty" is not valid/);
  });
});

if (DIALECTS.includes('postgres')) {
  describe('start on PostgreSQL', () => {
    test('two servers starting at once on one database: one migrates, one seeds the demo', async () => {
      const database = await createTestDatabase('postgres');
      try {
        const env = {
          DATABASE_URL: database.location.databaseUrl!,
          FOLIO_ADMIN_TOKEN: 'an-admin-token-for-tests',
        };
        const [a, b] = await Promise.all([
          freePort().then((port) => startServer({ ...env, PORT: String(port) })),
          freePort().then((port) => startServer({ ...env, PORT: String(port) })),
        ]);
        const seeded = [a, b].filter((server) => server.output().includes('Demo content key')).length;
        assert.equal(seeded, 1, 'exactly one process creates the demo project');
        for (const server of [a, b]) {
          assert.match(server.output(), /Sign in with the admin token set in FOLIO_ADMIN_TOKEN\./);
        }
        const { count } = await database.db
          .selectFrom('projects')
          .select((eb) => eb.fn.countAll<string | number>().as('count'))
          .executeTakeFirstOrThrow();
        assert.equal(Number(count), 1);
        assert.deepEqual(await Promise.all([stop(a), stop(b)]), [0, 0]);
      } finally {
        await database.close();
      }
    });

    test('two servers: a write through one is served by the other on the next request; a killed one holds writes up no longer than its lease', async () => {
      const database = await createTestDatabase('postgres');
      const env = {
        DATABASE_URL: database.location.databaseUrl!,
        FOLIO_ADMIN_TOKEN: 'an-admin-token-for-tests',
      };
      const ports = [await freePort(), await freePort()];
      const a = await startServer({ ...env, PORT: String(ports[0]) });
      const b = await startServer({ ...env, PORT: String(ports[1]) });
      try {
        const key = /Demo content key \(shown once\): (folio_ck_\S+)/.exec(a.output() + b.output())?.[1];
        const projectId = /Demo project id: (\S+)/.exec(a.output() + b.output())?.[1];
        assert.ok(key && projectId);
        const [baseA, baseB] = ports.map((port) => `http://127.0.0.1:${port}`);
        const put = (title: string) =>
          fetch(`${baseA}/admin/v1/projects/${projectId}/articles/two-servers`, {
            method: 'PUT',
            headers: { authorization: `Bearer ${env.FOLIO_ADMIN_TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              slug: 'two-servers',
              title,
              published: true,
              blocks: [{ type: 'paragraph', content: [{ text: title }] }],
            }),
          });
        const titleOnB = async () => {
          const response = await fetch(`${baseB}/api/v1/projects/${projectId}/content/by-slug/two-servers`, {
            headers: { authorization: `Bearer ${key}` },
          });
          return ((await response.json()) as { data: { title: string } }).data.title;
        };
        assert.ok((await put('Version 0')).ok);
        for (let i = 1; i <= 20; i++) {
          // B holds the last version ready...
          await titleOnB();
          assert.equal(await titleOnB(), `Version ${i - 1}`);
          // ...and answers the new one as soon as A has answered the write.
          assert.ok((await put(`Version ${i}`)).ok);
          assert.equal(await titleOnB(), `Version ${i}`, `write ${i}`);
        }

        await kill(b);
        const started = Date.now();
        assert.ok((await put('After the crash')).ok);
        const firstWrite = Date.now() - started;
        assert.ok(firstWrite < 10_000, `the first write after the crash took ${firstWrite} ms`);
        const { rows } = await sql<{ n: number }>`select count(*)::int as n from folio_instances
          where lease_until > now()`.execute(database.db);
        assert.equal(rows[0]!.n, 1, 'the killed server’s lease has run out');
      } finally {
        await kill(b);
        assert.equal(await stop(a), 0);
        await database.close();
      }
    });
  });
}

describe('shutdown', () => {
  test('draining connections and a delivery in flight share the one grace: SIGTERM exits cleanly', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-shutdown-'));
    const receiver = await startReceiver();
    // A receiver slower than the grace, and a webhook timeout that waits for it: the delivery is
    // given up at the grace's end, not cut by the forced exit after it.
    receiver.fallback = { status: 204, delayMs: 40_000 };
    const admin = 'shutdown-test-admin-token';
    const port = await freePort();
    const server = await startServer({
      PORT: String(port),
      FOLIO_DATA_DIR: dataDir,
      FOLIO_ADMIN_TOKEN: admin,
      FOLIO_DEMO: 'false',
      FOLIO_WEBHOOK_ALLOW_PRIVATE: 'true',
      FOLIO_WEBHOOK_TIMEOUT: '30s',
    });
    const socket = net.connect(port, '127.0.0.1');
    try {
      const project = (await requestJson(port, 'POST', '/admin/v1/projects', admin, { name: 'Blog' })).body!
        .data as { id: string };
      const hook = `/admin/v1/projects/${project.id}/webhook`;
      assert.equal((await requestJson(port, 'PUT', hook, admin, { url: receiver.url })).status, 200);
      assert.equal((await requestJson(port, 'POST', `${hook}/test`, admin)).status, 202);
      await receiver.waitFor(1);
      // A kept-alive connection, idle: a draining server waits for its keep-alive timeout.
      let answered = '';
      socket.on('data', (chunk) => {
        answered += chunk;
      });
      socket.on('error', () => {});
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      while (!answered.includes('"ok"')) await new Promise((resolve) => setTimeout(resolve, 10));

      assert.equal(await stop(server), 0, server.output());
    } finally {
      socket.destroy();
      await kill(server);
      await receiver.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
