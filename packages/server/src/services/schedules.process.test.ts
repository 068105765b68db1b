import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { listEvents } from '../test/assertions.ts';
import { createTestDatabase, DIALECTS, databaseEnv } from '../test/databases.ts';
import {
  freePort,
  kill,
  requestJson,
  type ServerProcess,
  startServer,
  stop,
} from '../test/server-process.ts';

const ADMIN = 'schedule-process-admin-token';

/** Polls `check` until it holds, for at most `ms`; resolves with how long it took. */
async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Date.now() - started;
}

for (const dialect of DIALECTS) {
  describe(`scheduled publishing across processes [${dialect}]`, () => {
    test('a schedule that came due while the server was killed applies once, soon after the next start', async () => {
      const database = await createTestDatabase(dialect);
      const env = {
        FOLIO_ADMIN_TOKEN: ADMIN,
        FOLIO_DEMO: 'false',
        ...databaseEnv(database),
      };
      let server: ServerProcess | undefined;
      try {
        const port = await freePort();
        server = await startServer({ ...env, PORT: String(port) });
        const project = await requestJson(port, 'POST', '/admin/v1/projects', ADMIN, { name: 'Crash' });
        const projectId = (project.body!.data as { id: string }).id;
        const key = await requestJson(port, 'POST', `/admin/v1/projects/${projectId}/keys`, ADMIN, {
          name: 'k',
        });
        const contentKey = (key.body!.data as { key: string }).key;
        const dueAt = Date.now() + 1_500;
        const put = await requestJson(port, 'PUT', `/admin/v1/projects/${projectId}/articles/a`, ADMIN, {
          slug: 'scheduled',
          title: 'Scheduled',
          blocks: [],
          publishAt: new Date(dueAt).toISOString(),
        });
        assert.equal(put.status, 201);
        await kill(server);
        server = undefined;
        // Due while no server runs.
        await new Promise((resolve) => setTimeout(resolve, dueAt - Date.now() + 500));
        assert.deepEqual(await listEvents(database.db), []);

        const again = await freePort();
        server = await startServer({ ...env, PORT: String(again) });
        const served = async () =>
          (
            await requestJson(
              again,
              'GET',
              `/api/v1/projects/${projectId}/content/by-slug/scheduled`,
              contentKey,
            )
          ).status === 200;
        await within(3_000, served);
        const events = await listEvents(database.db);
        assert.deepEqual(
          events.map((event) => event.type),
          ['content.created'],
        );
        const article = await requestJson(again, 'GET', `/admin/v1/projects/${projectId}/articles/a`, ADMIN);
        assert.equal((article.body!.data as { publishAt: string | null }).publishAt, null);
      } finally {
        if (server) assert.equal(await stop(server), 0);
        await database.close();
      }
    });

    test('a due schedule applies within 2 seconds of its time, and is served before its webhook is sent', async () => {
      const database = await createTestDatabase(dialect);
      const received: { at: number; status: number }[] = [];
      const http = await import('node:http');
      let port = 0;
      let projectId = '';
      let contentKey = '';
      const receiver = http.createServer((request, response) => {
        request.resume();
        request.on('end', async () => {
          const read = await requestJson(
            port,
            'GET',
            `/api/v1/projects/${projectId}/content/by-slug/on-time`,
            contentKey,
          );
          received.push({ at: Date.now(), status: read.status });
          response.writeHead(204).end();
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      const hook = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
      port = await freePort();
      const server = await startServer({
        FOLIO_ADMIN_TOKEN: ADMIN,
        FOLIO_DEMO: 'false',
        FOLIO_WEBHOOK_ALLOW_PRIVATE: 'true',
        ...databaseEnv(database),
        PORT: String(port),
      });
      try {
        projectId = (
          (await requestJson(port, 'POST', '/admin/v1/projects', ADMIN, { name: 'On time' })).body!.data as {
            id: string;
          }
        ).id;
        contentKey = (
          (await requestJson(port, 'POST', `/admin/v1/projects/${projectId}/keys`, ADMIN, { name: 'k' }))
            .body!.data as { key: string }
        ).key;
        await requestJson(port, 'PUT', `/admin/v1/projects/${projectId}/webhook`, ADMIN, { url: hook });
        const dueAt = Date.now() + 2_000;
        await requestJson(port, 'PUT', `/admin/v1/projects/${projectId}/articles/a`, ADMIN, {
          slug: 'on-time',
          title: 'On time',
          blocks: [],
          publishAt: new Date(dueAt).toISOString(),
        });
        await within(6_000, async () => received.length > 0);
        assert.equal(received[0]!.status, 200, 'the receiver reads the new state when its webhook arrives');
        assert.ok(
          received[0]!.at - dueAt < 2_000,
          `applied and announced ${received[0]!.at - dueAt} ms late`,
        );
      } finally {
        assert.equal(await stop(server), 0);
        receiver.close();
        await database.close();
      }
    });
  });
}
