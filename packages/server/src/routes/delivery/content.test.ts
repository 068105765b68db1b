import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { DIALECTS } from '../../test/databases.ts';
import { createTestApp, newArticle, type TestApp } from '../../test/test-app.ts';

const HOUR = 3_600_000;

for (const dialect of DIALECTS) {
  describe(`delivery API: authentication [${dialect}]`, () => {
    let t: TestApp;
    let projectId: string;
    let key: string;
    beforeEach(async () => {
      t = await createTestApp(dialect);
      projectId = (await t.createProject()).id;
      key = await t.createKey(projectId);
    });
    afterEach(() => t.close());

    const list = () => `/api/v1/projects/${projectId}/content`;

    test('a missing, malformed, unknown or admin token answers 401 with WWW-Authenticate', async () => {
      const cases: Record<string, string | undefined> = {
        missing: undefined,
        malformed: `Basic ${key}`,
        empty: 'Bearer ',
        unknown: 'Bearer folio_ck_doesnotexistdoesnotexistdoesnotexist00000',
        admin: 'Bearer test-admin-token-0123456789',
      };
      for (const [name, authorization] of Object.entries(cases)) {
        const response = await t.app.inject({
          method: 'GET',
          url: list(),
          headers: authorization ? { authorization } : {},
        });
        assert.equal(response.statusCode, 401, name);
        assert.equal(response.headers['www-authenticate'], 'Bearer', name);
        assert.equal(response.json().success, false, name);
        assert.equal(response.json().error.code, 'unauthorized', name);
      }
    });

    test('a valid key answers 200 and works with any case of the Bearer scheme', async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: list(),
        headers: { authorization: `bearer ${key}` },
      });
      assert.equal(response.statusCode, 200);
      assert.equal(response.json().success, true);
    });

    test('a key used on another project, or on an unknown project, answers 403', async () => {
      const other = await t.createProject({ name: 'Other' });
      for (const id of [other.id, 'prj_unknown']) {
        const response = await t.deliver(key, `/api/v1/projects/${id}/content`);
        assert.equal(response.statusCode, 403, id);
        assert.equal(response.json().error.code, 'forbidden');
        // The same words for both, so an id that exists is not told from one that does not;
        // they point at the likelier mistake, a wrong id in the URL.
        assert.equal(
          response.json().error.message,
          'This content key is not a key of the project in the URL: check its project id.',
        );
      }
    });

    test('a revoked key stops working on the next request', async () => {
      assert.equal((await t.deliver(key, list())).statusCode, 200);
      const keys = (await t.admin('GET', `/admin/v1/projects/${projectId}/keys`)).json().data;
      assert.equal(
        (await t.admin('DELETE', `/admin/v1/projects/${projectId}/keys/${keys[0].id}`)).statusCode,
        204,
      );
      const response = await t.deliver(key, list());
      assert.equal(response.statusCode, 401);
      assert.equal(response.json().error.code, 'unauthorized');
    });

    test('a credential of the other API is refused with what it is and where it belongs', async () => {
      const admin = await t.deliver('folio_admin_Mx3hT9qLkP0aW2sZ7vB5nC8dF1gJ4yR6uE0iO3pA2lK', list());
      assert.equal(admin.statusCode, 401);
      assert.match(
        admin.json().error.message,
        /^The content key is not valid: this looks like an admin token, which is for the management API/,
      );
      const typo = await t.deliver(`${key}x`, list());
      assert.equal(typo.json().error.message, 'The content key is not valid.');
      const management = await t.app.inject({
        method: 'GET',
        url: '/admin/v1/projects',
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(management.statusCode, 401);
      assert.match(
        management.json().error.message,
        /^The admin token is not valid: this looks like a content or preview key, which is for the delivery API/,
      );
    });

    test('authentication is checked before the query, so a bad query without a key is 401', async () => {
      const response = await t.app.inject({ method: 'GET', url: `${list()}?page=abc` });
      assert.equal(response.statusCode, 401);
    });

    test('a path with broken percent-encoding is 401 without a key, and 400 with one', async () => {
      const broken = `/api/v1/projects/${projectId}/content/by-slug/%E0%A4%A`;
      const anonymous = await t.app.inject({ method: 'GET', url: broken });
      assert.equal(anonymous.statusCode, 401);
      assert.equal(anonymous.headers['www-authenticate'], 'Bearer');
      assert.equal(anonymous.json().error.code, 'unauthorized');
      const keyed = await t.deliver(key, broken);
      assert.equal(keyed.statusCode, 400);
      assert.equal(keyed.json().error.code, 'invalid_query');
      const admin = await t.app.inject({
        method: 'GET',
        url: `/admin/v1/projects/${projectId}/articles/%E0%A4%A`,
      });
      assert.equal(admin.statusCode, 401);
      assert.equal((await t.app.inject({ method: 'GET', url: '/public/v1/%E0%A4%A' })).statusCode, 400);
    });

    test('a path segment longer than the router takes is 401 without a key, 404 with one', async () => {
      const long = 'x'.repeat(5_000);
      for (const url of [
        `/api/v1/projects/${long}/content`,
        `/api/v1/projects/${projectId}/content/by-slug/${long}`,
        `/admin/v1/projects/${long}`,
      ]) {
        const anonymous = await t.app.inject({ method: 'GET', url });
        assert.equal(anonymous.statusCode, 401, url.slice(0, 40));
        assert.equal(anonymous.headers['www-authenticate'], 'Bearer');
      }
      const keyed = await t.deliver(key, `/api/v1/projects/${projectId}/content/by-slug/${long}`);
      assert.equal(keyed.statusCode, 404);
    });
  });

  describe(`delivery API: list [${dialect}]`, () => {
    let t: TestApp;
    let projectId: string;
    let key: string;
    beforeEach(async () => {
      t = await createTestApp(dialect);
      projectId = (await t.createProject({ websiteUrl: 'https://www.example.com', articlesPath: '/blog' }))
        .id;
      key = await t.createKey(projectId);
    });
    afterEach(() => t.close());

    const get = (query = '') => t.deliver(key, `/api/v1/projects/${projectId}/content${query}`);
    async function publishMany(count: number) {
      for (let i = 1; i <= count; i++) {
        t.clock.advance(HOUR);
        await t.putArticle(projectId, `a${String(i).padStart(3, '0')}`, newArticle({ published: true }));
      }
    }

    test('an empty project answers an empty page with totalPages 0', async () => {
      const body = (await get()).json();
      assert.deepEqual(body, {
        success: true,
        data: [],
        pagination: { page: 1, limit: 20, total: 0, totalPages: 0, hasNext: false, hasPrev: false },
      });
    });

    test('pagination follows the contract math and pages are stable', async () => {
      await publishMany(7);
      const first = (await get('?limit=3')).json();
      assert.deepEqual(first.pagination, {
        page: 1,
        limit: 3,
        total: 7,
        totalPages: 3,
        hasNext: true,
        hasPrev: false,
      });
      const last = (await get('?limit=3&page=3')).json();
      assert.deepEqual(last.pagination, {
        page: 3,
        limit: 3,
        total: 7,
        totalPages: 3,
        hasNext: false,
        hasPrev: true,
      });
      assert.equal(last.data.length, 1);
      const seen: string[] = [];
      for (let page = 1; page <= 3; page++) {
        seen.push(...(await get(`?limit=3&page=${page}`)).json().data.map((a: { id: string }) => a.id));
      }
      assert.deepEqual(seen, ['a007', 'a006', 'a005', 'a004', 'a003', 'a002', 'a001']);
    });

    test('a page past the end is 200 with no data', async () => {
      await publishMany(2);
      const response = await get('?page=5');
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json().data, []);
      assert.equal(response.json().pagination.hasPrev, true);
      assert.equal(response.json().pagination.hasNext, false);
    });

    test('order is publishedAt descending, then id descending on ties', async () => {
      t.clock.advance(HOUR);
      await t.putArticle(projectId, 'b', newArticle({ published: true }));
      await t.putArticle(projectId, 'c', newArticle({ published: true })); // same instant as b
      t.clock.advance(HOUR);
      await t.putArticle(projectId, 'a', newArticle({ published: true }));
      const ids = (await get()).json().data.map((a: { id: string }) => a.id);
      assert.deepEqual(ids, ['a', 'c', 'b']);
    });

    test('limit over 100 is capped to 100; default limit is 20', async () => {
      await publishMany(105);
      const capped = (await get('?limit=1000')).json();
      assert.equal(capped.pagination.limit, 100);
      assert.equal(capped.data.length, 100);
      assert.equal(capped.pagination.totalPages, 2);
      const byDefault = (await get()).json();
      assert.equal(byDefault.pagination.limit, 20);
      assert.equal(byDefault.data.length, 20);
    });

    test('any whole number is taken: a huge limit is capped, a huge page is past the end; other parameters are ignored', async () => {
      await publishMany(3);
      const capped = await get('?limit=3000000000');
      assert.equal(capped.statusCode, 200);
      assert.equal(capped.json().pagination.limit, 100);
      assert.equal(capped.json().data.length, 3);
      const past = await get('?page=3000000000&limit=100000000000000000000');
      assert.equal(past.statusCode, 200);
      assert.deepEqual(past.json().data, []);
      assert.deepEqual(past.json().pagination, {
        page: 3000000000,
        limit: 100,
        total: 3,
        totalPages: 1,
        hasNext: false,
        hasPrev: true,
      });
      const padded = await get('?page=01&limit=002');
      assert.deepEqual([padded.json().pagination.page, padded.json().pagination.limit], [1, 2]);
      const tagged = await get('?limit=2&utm_source=newsletter&_=1700000000');
      assert.equal(tagged.statusCode, 200);
      assert.deepEqual(tagged.json(), (await get('?limit=2')).json());
    });

    test('a page or limit too large to hold exactly is still a whole number: past the end, capped', async () => {
      await publishMany(3);
      const response = await get('?page=99999999999999999999999&limit=100000000000000000000');
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json().data, []);
      assert.deepEqual(response.json().pagination, {
        page: Number.MAX_SAFE_INTEGER,
        limit: 100,
        total: 3,
        totalPages: 1,
        hasNext: false,
        hasPrev: true,
      });
    });

    test('non-numeric, fractional, zero and negative page or limit answer 400 invalid_query', async () => {
      for (const query of [
        '?page=abc',
        '?page=0',
        '?page=-1',
        '?page=1.5',
        '?limit=abc',
        '?limit=0',
        '?limit=-5',
        '?limit=2.5',
        '?page=',
        '?page=1e400',
        '?page=1&page=2',
        '?page=1e1',
        '?limit=0x10',
        '?limit=%201',
        '?page=%2B2',
        '?limit=5.0',
      ]) {
        const response = await get(query);
        assert.equal(response.statusCode, 400, query);
        const body = response.json();
        assert.equal(body.success, false);
        assert.equal(body.error.code, 'invalid_query', query);
        assert.ok(body.error.details.length > 0, query);
      }
    });

    test('list items carry blocks and seo but never related; unpublished articles are not listed', async () => {
      await t.putArticle(projectId, 'pub', newArticle({ published: true, related: ['x'] }));
      await t.putArticle(projectId, 'draft', newArticle());
      const body = (await get()).json();
      assert.equal(body.pagination.total, 1);
      const [item] = body.data;
      assert.deepEqual(Object.keys(item).sort(), [
        'blocks',
        'id',
        'publishedAt',
        'seo',
        'slug',
        'title',
        'updatedAt',
      ]);
      assert.ok(Array.isArray(item.blocks));
    });
  });

  describe(`delivery API: by slug [${dialect}]`, () => {
    let t: TestApp;
    let projectId: string;
    let key: string;
    beforeEach(async () => {
      t = await createTestApp(dialect);
      projectId = (await t.createProject({ websiteUrl: 'https://www.example.com', articlesPath: '/blog' }))
        .id;
      key = await t.createKey(projectId);
    });
    afterEach(() => t.close());

    const bySlug = (encodedSlug: string) =>
      t.deliver(key, `/api/v1/projects/${projectId}/content/by-slug/${encodedSlug}`);

    test('answers the article with related links; unknown, unpublished and deleted slugs answer 404', async () => {
      await t.putArticle(projectId, 'one', newArticle({ slug: 'one', published: true }));
      await t.putArticle(projectId, 'draft', newArticle({ slug: 'draft' }));
      await t.putArticle(projectId, 'gone', newArticle({ slug: 'gone', published: true }));
      await t.admin('DELETE', `/admin/v1/projects/${projectId}/articles/gone`);

      const found = await bySlug('one');
      assert.equal(found.statusCode, 200);
      assert.equal(found.json().success, true);
      assert.equal(found.json().data.id, 'one');
      assert.ok(Array.isArray(found.json().data.related));

      for (const slug of ['nope', 'draft', 'gone']) {
        const response = await bySlug(slug);
        assert.equal(response.statusCode, 404, slug);
        assert.equal(response.json().error.code, 'not_found');
      }
    });

    test('the slug is URL-decoded once: emoji and reserved characters round-trip', async () => {
      const slug = 'café-☕-🚀';
      await t.putArticle(projectId, 'emoji', newArticle({ slug, published: true }));
      const response = await bySlug(encodeURIComponent(slug));
      assert.equal(response.statusCode, 200);
      assert.equal(response.json().data.slug, slug);
      assert.equal(response.json().data.seo.canonicalPath, `/blog/${encodeURIComponent(slug)}`);
      // Decoding twice would turn %2525 into %; once gives the literal "%25", which no slug holds.
      assert.equal((await bySlug('%2525')).statusCode, 404);
    });

    test('hostile slugs answer 404 in the contract shape and the server keeps serving', async () => {
      await t.putArticle(projectId, 'ok', newArticle({ slug: 'ok', published: true }));
      for (const slug of ['..', '%2e%2e', '%00', '%2F', 'x'.repeat(10_000), '%F0%9F%92%A9', '%E0%A4%A']) {
        const response = await bySlug(slug);
        assert.ok([400, 404].includes(response.statusCode), `${slug.slice(0, 20)} → ${response.statusCode}`);
        assert.equal(response.json().success, false);
        assert.match(response.json().error.code, /^(not_found|invalid_query)$/);
      }
      assert.equal((await bySlug('ok')).statusCode, 200);
    });

    test('related: the author order, published only; else up to 3 newest others', async () => {
      for (const id of ['r1', 'r2', 'r3', 'r4']) {
        t.clock.advance(HOUR);
        await t.putArticle(projectId, id, newArticle({ slug: id, title: `Title ${id}`, published: true }));
      }
      await t.putArticle(projectId, 'hidden', newArticle({ slug: 'hidden' }));
      t.clock.advance(HOUR);
      await t.putArticle(
        projectId,
        'main',
        newArticle({ slug: 'main', published: true, related: ['r3', 'hidden', 'missing', 'r1'] }),
      );
      const given = (await bySlug('main')).json().data.related;
      assert.deepEqual(given, [
        { id: 'r3', slug: 'r3', title: 'Title r3', canonicalPath: '/blog/r3' },
        { id: 'r1', slug: 'r1', title: 'Title r1', canonicalPath: '/blog/r1' },
      ]);
      const fallback = (await bySlug('r1')).json().data.related.map((r: { id: string }) => r.id);
      assert.deepEqual(fallback, ['main', 'r4', 'r3']);
    });
  });
}
