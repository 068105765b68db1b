import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { assertError, assertInvalidBody, countRows } from '../../test/assertions.ts';
import { DIALECTS } from '../../test/databases.ts';
import { ADMIN_TOKEN, createTestApp, newArticle, START_TIME, type TestApp } from '../../test/test-app.ts';

const MINUTE = 60_000;

for (const dialect of DIALECTS) {
  describe(`management API: content keys [${dialect}]`, () => {
    let t: TestApp;
    let projectId: string;
    beforeEach(async () => {
      t = await createTestApp(dialect);
      projectId = (await t.createProject()).id;
    });
    afterEach(() => t.close());

    const keysUrl = (id = projectId) => `/admin/v1/projects/${id}/keys`;
    const content = (id = projectId) => `/api/v1/projects/${id}/content`;

    test('POST answers 201 with id, name, kind, prefix, key and createdAt; the key is folio_ck_ and 32+ random bytes', async () => {
      t.clock.advance(42);
      const response = await t.admin('POST', keysUrl(), { name: 'Website' });
      assert.equal(response.statusCode, 201, response.body);
      const { success, data } = response.json();
      assert.equal(success, true);
      assert.deepEqual(Object.keys(data).sort(), ['createdAt', 'id', 'key', 'kind', 'name', 'prefix']);
      assert.equal(data.name, 'Website');
      assert.equal(data.kind, 'content');
      assert.equal(data.createdAt, new Date(START_TIME + 42).toISOString());
      assert.match(data.key, /^folio_ck_[A-Za-z0-9_-]+$/);
      const secret = Buffer.from(data.key.slice('folio_ck_'.length), 'base64url');
      assert.ok(secret.length >= 32, `only ${secret.length} bytes`);
      assert.ok(data.key.startsWith(data.prefix), 'the prefix is the start of the key');
      assert.ok(data.prefix.length < data.key.length - 32, 'the prefix does not give the secret away');

      const other = (await t.admin('POST', keysUrl(), { name: 'Website' })).json().data;
      assert.notEqual(other.key, data.key);
      assert.notEqual(other.id, data.id);
    });

    test('the key works on the delivery API of its project', async () => {
      const key = await t.createKey(projectId);
      assert.equal((await t.deliver(key, content())).statusCode, 200);
    });

    test('the key is never shown again: the list has id, name, kind, prefix, createdAt, lastUsedAt only', async () => {
      const created = (await t.admin('POST', keysUrl(), { name: 'Website' })).json().data;
      const response = await t.admin('GET', keysUrl());
      assert.equal(response.statusCode, 200);
      assert.ok(!response.body.includes(created.key), 'the list shows the secret');
      assert.deepEqual(response.json(), {
        success: true,
        data: [
          {
            id: created.id,
            name: 'Website',
            kind: 'content',
            prefix: created.prefix,
            createdAt: created.createdAt,
            lastUsedAt: null,
          },
        ],
        pagination: { page: 1, limit: 100, total: 1, totalPages: 1, hasNext: false, hasPrev: false },
      });
      const projectBody = (await t.admin('GET', `/admin/v1/projects/${projectId}`)).body;
      assert.ok(!projectBody.includes(created.key));
    });

    test('the database never stores the key, in any column', async () => {
      const created = (await t.admin('POST', keysUrl(), { name: 'Website' })).json().data;
      await t.deliver(created.key, content());
      const rows = await t.db.selectFrom('content_keys').selectAll().execute();
      assert.equal(rows.length, 1);
      for (const [column, value] of Object.entries(rows[0]!)) {
        assert.ok(!String(value).includes(created.key), `column ${column} holds the key`);
        // Not even the random part: only the short display prefix may appear.
        assert.ok(
          !String(value).includes(created.key.slice(20)),
          `column ${column} holds part of the secret`,
        );
      }
      for (const table of ['projects', 'articles', 'events', 'settings'] as const) {
        const all = JSON.stringify(await t.db.selectFrom(table).selectAll().execute());
        assert.ok(!all.includes(created.key), `table ${table} holds the key`);
      }
    });

    test('lastUsedAt is null before use and the injected clock after a delivery request', async () => {
      const created = (await t.admin('POST', keysUrl(), { name: 'Website' })).json().data;
      const listed = async () => (await t.admin('GET', keysUrl())).json().data[0].lastUsedAt;
      assert.equal(await listed(), null);
      t.clock.advance(5 * MINUTE + 7);
      assert.equal((await t.deliver(created.key, content())).statusCode, 200);
      assert.equal(await listed(), new Date(START_TIME + 5 * MINUTE + 7).toISOString());
      // A later use moves it forward (its resolution is coarse, but an hour is visible).
      t.clock.advance(60 * MINUTE);
      await t.deliver(created.key, content());
      assert.equal(await listed(), new Date(START_TIME + 65 * MINUTE + 7).toISOString());
    });

    test('a failed delivery request (403 on another project) does not count as a use', async () => {
      const created = (await t.admin('POST', keysUrl(), { name: 'Website' })).json().data;
      const other = await t.createProject({ name: 'Other' });
      assertError(await t.deliver(created.key, content(other.id)), 403, 'forbidden');
      assert.equal((await t.admin('GET', keysUrl())).json().data[0].lastUsedAt, null);
    });

    test('DELETE answers 204; the key answers 401 on the next request and leaves the list', async () => {
      const keep = (await t.admin('POST', keysUrl(), { name: 'Keep' })).json().data;
      t.clock.advance(1);
      const revoke = (await t.admin('POST', keysUrl(), { name: 'Revoke' })).json().data;
      assert.equal((await t.deliver(revoke.key, content())).statusCode, 200);

      const response = await t.admin('DELETE', `${keysUrl()}/${revoke.id}`);
      assert.equal(response.statusCode, 204);
      assert.equal(response.body, '');

      const refused = await t.deliver(revoke.key, content());
      assertError(refused, 401, 'unauthorized');
      assert.equal(refused.headers['www-authenticate'], 'Bearer');
      assert.deepEqual(
        (await t.admin('GET', keysUrl())).json().data.map((k: { id: string }) => k.id),
        [keep.id],
      );
      assert.equal((await t.deliver(keep.key, content())).statusCode, 200, 'the other key keeps working');
      // Revoking twice: the key is no longer there.
      assertError(await t.admin('DELETE', `${keysUrl()}/${revoke.id}`), 404, 'not_found');
    });

    test('DELETE of an unknown key, or on an unknown project, answers 404', async () => {
      assertError(await t.admin('DELETE', `${keysUrl()}/key_unknown`), 404, 'not_found');
      const created = (await t.admin('POST', keysUrl(), { name: 'k' })).json().data;
      assertError(await t.admin('DELETE', `${keysUrl('prj_unknown')}/${created.id}`), 404, 'not_found');
      assert.equal((await t.deliver(created.key, content())).statusCode, 200);
    });

    test("a key cannot be revoked through another project's path", async () => {
      const created = (await t.admin('POST', keysUrl(), { name: 'Mine' })).json().data;
      const other = await t.createProject({ name: 'Other' });
      assertError(await t.admin('DELETE', `${keysUrl(other.id)}/${created.id}`), 404, 'not_found');
      assert.equal((await t.deliver(created.key, content())).statusCode, 200);
      assert.equal((await t.admin('GET', keysUrl())).json().data.length, 1);
      assert.deepEqual((await t.admin('GET', keysUrl(other.id))).json().data, []);
    });

    test('keys are listed per project', async () => {
      const other = await t.createProject({ name: 'Other' });
      await t.admin('POST', keysUrl(), { name: 'mine' });
      await t.admin('POST', keysUrl(other.id), { name: 'theirs' });
      assert.deepEqual(
        (await t.admin('GET', keysUrl())).json().data.map((k: { name: string }) => k.name),
        ['mine'],
      );
      assert.deepEqual(
        (await t.admin('GET', keysUrl(other.id))).json().data.map((k: { name: string }) => k.name),
        ['theirs'],
      );
      assert.deepEqual((await t.admin('GET', keysUrl())).json().pagination, {
        page: 1,
        limit: 100,
        total: 1,
        totalPages: 1,
        hasNext: false,
        hasPrev: false,
      });
    });

    test('POST and GET on an unknown project answer 404 and store nothing', async () => {
      assertError(await t.admin('POST', keysUrl('prj_unknown'), { name: 'k' }), 404, 'not_found');
      assertError(await t.admin('GET', keysUrl('prj_unknown')), 404, 'not_found');
      assert.equal((await countRows(t.db)).content_keys, 0);
    });

    test('POST without a name, with an empty name or an unknown field answers 400', async () => {
      assertInvalidBody(await t.admin('POST', keysUrl(), {}), '/name');
      assertInvalidBody(await t.admin('POST', keysUrl(), { name: '' }), '/name');
      assertInvalidBody(await t.admin('POST', keysUrl(), { name: 5 }), '/name');
      assertInvalidBody(await t.admin('POST', keysUrl(), { name: 'k', scope: 'all' }), '/scope');
      assert.equal((await countRows(t.db)).content_keys, 0);
    });
  });

  describe(`management API: authentication [${dialect}]`, () => {
    let t: TestApp;
    let projectId: string;
    let contentKey: string;
    beforeEach(async () => {
      t = await createTestApp(dialect);
      projectId = (await t.createProject()).id;
      contentKey = await t.createKey(projectId);
      await t.putArticle(projectId, 'a1', newArticle({ slug: 'a1', published: true }));
    });
    afterEach(() => t.close());

    const routes = (): [string, string, unknown?][] => {
      const p = `/admin/v1/projects/${projectId}`;
      return [
        ['POST', '/admin/v1/projects', { name: 'x' }],
        ['GET', '/admin/v1/projects'],
        ['GET', p],
        ['PATCH', p, { name: 'x' }],
        ['POST', `${p}/keys`, { name: 'x' }],
        ['GET', `${p}/keys`],
        ['DELETE', `${p}/keys/key_x`],
        ['PUT', `${p}/articles/a2`, newArticle()],
        ['GET', `${p}/articles`],
        ['GET', `${p}/articles/a1`],
        ['POST', `${p}/articles/a1/publish`],
        ['POST', `${p}/articles/a1/unpublish`],
        ['DELETE', `${p}/articles/a1`],
      ];
    };

    const tokens: Record<string, () => Record<string, string>> = {
      'no token': () => ({}),
      'an empty bearer': () => ({ authorization: 'Bearer ' }),
      'a wrong token': () => ({ authorization: 'Bearer test-admin-token-0123456780' }),
      'the admin token under another scheme': () => ({ authorization: `Basic ${ADMIN_TOKEN}` }),
      'the admin token without a scheme': () => ({ authorization: ADMIN_TOKEN }),
      'the admin token with a suffix': () => ({ authorization: `Bearer ${ADMIN_TOKEN}x` }),
      'a valid content key': () => ({ authorization: `Bearer ${contentKey}` }),
    };

    for (const [name, headers] of Object.entries(tokens)) {
      test(`every route answers 401 unauthorized with WWW-Authenticate: Bearer for ${name}`, async () => {
        const before = await countRows(t.db);
        for (const [method, url, body] of routes()) {
          const response = await t.app.inject({
            method: method as 'GET',
            url,
            headers: headers(),
            ...(body === undefined ? {} : { payload: body as object }),
          });
          assertError(response, 401, 'unauthorized', `${method} ${url}`);
          assert.equal(response.headers['www-authenticate'], 'Bearer', `${method} ${url}`);
        }
        assert.deepEqual(await countRows(t.db), before, 'a refused request wrote something');
      });
    }

    test('the same routes exist and answer with the admin token', async () => {
      for (const [method, url, body] of routes()) {
        const response = await t.admin(method as 'GET', url, body);
        const expected = url.endsWith('/keys/key_x') ? 404 : method === 'DELETE' ? 204 : undefined;
        if (expected) assert.equal(response.statusCode, expected, `${method} ${url}`);
        else assert.ok([200, 201].includes(response.statusCode), `${method} ${url} → ${response.statusCode}`);
      }
    });

    test('the token is checked before the body: a bad body without a token is still 401', async () => {
      const response = await t.app.inject({
        method: 'PUT',
        url: `/admin/v1/projects/${projectId}/articles/a9`,
        headers: { 'content-type': 'application/json' },
        payload: '{not json',
      });
      assertError(response, 401, 'unauthorized');
      const unknownProject = await t.app.inject({ method: 'GET', url: '/admin/v1/projects/prj_unknown' });
      assertError(unknownProject, 401, 'unauthorized');
    });

    test('the admin token works with any case of the Bearer scheme', async () => {
      for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
        const response = await t.app.inject({
          method: 'GET',
          url: '/admin/v1/projects',
          headers: { authorization: `${scheme} ${ADMIN_TOKEN}` },
        });
        assert.equal(response.statusCode, 200, scheme);
      }
    });

    test('the admin token does not open the delivery API', async () => {
      const response = await t.deliver(ADMIN_TOKEN, `/api/v1/projects/${projectId}/content`);
      assertError(response, 401, 'unauthorized');
    });
  });
}
