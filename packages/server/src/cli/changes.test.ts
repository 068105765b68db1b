import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { resolveAdminCredential } from '../services/admin-auth.ts';
import { cliEnv, runFolio } from '../test/cli-runner.ts';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../test/databases.ts';
import { newArticle } from '../test/test-app.ts';

const ADMIN = 'changes-reset-admin-token';

for (const dialect of DIALECTS) {
  describe(`folio changes reset [${dialect}]`, () => {
    let database: TestDatabase;
    beforeEach(async () => {
      database = await createTestDatabase(dialect);
      await migrateToLatest(database.db, dialect);
    });
    afterEach(() => database.close());

    // A server on the database that holds no lease: one started, used, and stopped.
    const server = async () =>
      buildApp({
        db: database.connectAgain(),
        baseUrl: 'http://folio.test',
        adminCredential: await resolveAdminCredential({ db: database.db, now: Date.now }, ADMIN),
      });
    const call = (
      app: FastifyInstance,
      method: 'GET' | 'POST' | 'PUT',
      url: string,
      token = ADMIN,
      payload?: object,
    ) =>
      app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${token}` },
        ...(payload ? { payload } : {}),
      });

    test('a cursor from before is answered 410 by the servers started after it', async () => {
      const before = await server();
      let key: string;
      let feed: string;
      let cursor: string;
      try {
        const projectId = (await call(before, 'POST', '/admin/v1/projects', ADMIN, { name: 'Blog' })).json()
          .data.id;
        key = (
          await call(before, 'POST', `/admin/v1/projects/${projectId}/keys`, ADMIN, { name: 'site' })
        ).json().data.key;
        const put = await call(
          before,
          'PUT',
          `/admin/v1/projects/${projectId}/articles/a`,
          ADMIN,
          newArticle({ published: true }),
        );
        assert.equal(put.statusCode, 201, put.body);
        feed = `/api/v1/projects/${projectId}/content/changes`;
        cursor = (await call(before, 'GET', feed, key)).json().data.cursor;
        assert.equal((await call(before, 'GET', `${feed}?since=${cursor}`, key)).statusCode, 200);
      } finally {
        await before.close();
      }

      const reset = await runFolio(cliEnv(database), ['changes', 'reset', '--json']);
      assert.equal(reset.code, 0, reset.stderr);
      assert.match(reset.json().history, /^[A-Za-z0-9_-]{8}$/);

      const after = await server();
      try {
        const stale = await call(after, 'GET', `${feed}?since=${cursor}`, key);
        assert.equal(stale.statusCode, 410, stale.body);
        assert.equal(stale.json().error.code, 'cursor_expired');
        const fresh = (await call(after, 'GET', feed, key)).json().data;
        assert.equal(fresh.changes.length, 1);
        assert.equal((await call(after, 'GET', `${feed}?since=${fresh.cursor}`, key)).statusCode, 200);
      } finally {
        await after.close();
      }
    });

    if (dialect === 'postgres') {
      test('is refused while a server runs on the database, which would keep the old history', async () => {
        const history = () =>
          database.db
            .selectFrom('settings')
            .select('value')
            .where('key', '=', 'change_history')
            .executeTakeFirst();
        await (await server()).close();
        const before = await history();
        // A serving process holds a lease, renewed while it runs.
        await database.follow({ serving: true });
        const reset = await runFolio(cliEnv(database), ['changes', 'reset']);
        assert.equal(reset.code, 1);
        assert.match(reset.stderr, /A server process is running on this database: stop every server first/);
        assert.deepEqual(await history(), before);
      });
    }
  });
}
