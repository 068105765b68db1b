import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import {
  assertError,
  assertInvalidBody,
  countRows,
  detailPaths,
  type RowCounts,
} from '../../test/assertions.ts';
import { DIALECTS } from '../../test/databases.ts';
import { INVALID_BLOCKS } from '../../test/invalid-blocks.ts';
import { ADMIN_TOKEN, createTestApp, newArticle, paragraph, type TestApp } from '../../test/test-app.ts';

const MIB = 1024 * 1024;

for (const dialect of DIALECTS) {
  describe(`management API: bad input never hurts [${dialect}]`, () => {
    let t: TestApp;
    let projectId: string;
    let before: RowCounts;
    let good = 0;
    beforeEach(async () => {
      t = await createTestApp(dialect);
      projectId = (await t.createProject()).id;
      await t.putArticle(projectId, 'existing', newArticle({ slug: 'existing', published: true }));
      before = await countRows(t.db);
    });
    afterEach(() => t.close());

    const articleUrl = (id = 'new') => `/admin/v1/projects/${projectId}/articles/${id}`;
    const raw = (
      payload: string | Buffer,
      headers: Record<string, string> = { 'content-type': 'application/json' },
      method: 'PUT' | 'POST' | 'PATCH' = 'PUT',
      url = articleUrl(),
    ) =>
      t.app.inject({ method, url, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...headers }, payload });

    /** Nothing was written, and the server still serves a good request. */
    async function assertUnharmed(what: string) {
      assert.deepEqual(await countRows(t.db), before, `${what}: a refused request wrote something`);
      const existing = await t.admin('GET', articleUrl('existing'));
      assert.equal(existing.statusCode, 200, what);
      good += 1;
      const ok = await t.admin('PUT', articleUrl(`good-${good}`), newArticle());
      assert.equal(ok.statusCode, 201, `${what}: the following good request → ${ok.body}`);
      await t.admin('DELETE', articleUrl(`good-${good}`));
    }

    test('a body over 1 MiB answers 413 payload_too_large', async () => {
      const body = JSON.stringify(newArticle({ blocks: [paragraph('x'.repeat(MIB + 10))] }));
      assertError(await raw(body), 413, 'payload_too_large', 'PUT article');
      assertError(
        await raw(body, undefined, 'POST', '/admin/v1/projects'),
        413,
        'payload_too_large',
        'POST project',
      );
      // Even a body that is not JSON at all is measured first.
      assertError(
        await raw('x'.repeat(2 * MIB), { 'content-type': 'application/json' }),
        413,
        'payload_too_large',
      );
      await assertUnharmed('413');
    });

    test('a body of exactly 1 MiB is accepted; one byte more answers 413', async () => {
      const shell = JSON.stringify(newArticle({ slug: 'big', title: 'Big', blocks: [paragraph('')] }));
      const body = shell.replace('"text":""', `"text":"${'x'.repeat(MIB - shell.length)}"`);
      assert.equal(Buffer.byteLength(body), MIB);
      const exact = await raw(body, undefined, 'PUT', articleUrl('big'));
      assert.equal(exact.statusCode, 201, exact.body.slice(0, 300));
      const over = body.replace('"slug":"big"', '"slug":"big2"');
      assert.equal(Buffer.byteLength(over), MIB + 1);
      assertError(await raw(over, undefined, 'PUT', articleUrl('big2')), 413, 'payload_too_large');
      assertError(await t.admin('GET', articleUrl('big2')), 404, 'not_found');
    });

    test('a body that is not application/json answers 415 unsupported_media_type', async () => {
      const body = JSON.stringify(newArticle());
      for (const contentType of [
        'text/plain',
        'text/plain; charset=utf-8',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/xml',
        'text/json',
        'application/jsonx',
        'application/vnd.api+json',
        'application/json, text/plain',
      ]) {
        assertError(
          await raw(body, { 'content-type': contentType }),
          415,
          'unsupported_media_type',
          contentType,
        );
      }
      assertError(await raw(body, {}), 415, 'unsupported_media_type', 'no content type');
      assertError(
        await raw(
          JSON.stringify({ name: 'x' }),
          { 'content-type': 'text/plain' },
          'POST',
          '/admin/v1/projects',
        ),
        415,
        'unsupported_media_type',
        'POST project',
      );
      await assertUnharmed('415');
    });

    test('application/json in any case and with parameters is fine', async () => {
      for (const [i, contentType] of [
        'application/json; charset=utf-8',
        'application/json;charset=UTF-8',
        'APPLICATION/JSON',
        'Application/Json; charset=utf-8',
      ].entries()) {
        const response = await raw(
          JSON.stringify(newArticle()),
          { 'content-type': contentType },
          'PUT',
          articleUrl(`ct${i}`),
        );
        assert.equal(response.statusCode, 201, `${contentType}: ${response.body}`);
      }
    });

    test('broken JSON answers 400 invalid_body', async () => {
      for (const payload of [
        '{',
        '{"slug": ',
        "{'slug': 'a'}",
        '{"slug": "a",}',
        'undefined',
        'NaN',
        '{"slug": "a"} trailing',
        '{"a": 1}{"b": 2}',
      ]) {
        assertError(await raw(payload), 400, 'invalid_body', payload);
      }
      await assertUnharmed('broken JSON');
    });

    test('JSON that is not an article object answers 400 invalid_body', async () => {
      for (const payload of ['null', '[]', '"article"', '42', 'true', '{}', '']) {
        assertError(await raw(payload), 400, 'invalid_body', JSON.stringify(payload));
      }
      await assertUnharmed('not an object');
    });

    test('unknown fields at the top level, in seo, in a block and in a text run are each named', async () => {
      const body = {
        ...newArticle(),
        extra: 1,
        seo: { title: 'ok', extraSeo: 'x' },
        blocks: [
          { type: 'heading', level: 2, text: 'h', extraBlock: true },
          { type: 'paragraph', content: [{ text: 'x', color: 'red' }] },
        ],
      };
      const response = await t.admin('PUT', articleUrl(), body);
      assertError(response, 400, 'invalid_body');
      const paths = detailPaths(response);
      for (const path of ['/extra', '/seo/extraSeo', '/blocks/0/extraBlock', '/blocks/1/content/0/color']) {
        assert.ok(paths.includes(path), `details ${JSON.stringify(paths)} do not name ${path}`);
      }
      assertInvalidBody(await t.admin('PUT', articleUrl(), { ...newArticle(), Slug: 'case' }), '/Slug');
      assertInvalidBody(
        await t.admin('PUT', articleUrl(), { ...newArticle(), publishedAt: null }),
        '/publishedAt',
      );
      assertInvalidBody(await t.admin('PUT', articleUrl(), { ...newArticle(), id: 'other' }), '/id');
      assertInvalidBody(
        await t.admin('POST', '/admin/v1/projects', { name: 'x', webSiteUrl: 'https://a.example' }),
        '/webSiteUrl',
      );
      await assertUnharmed('unknown fields');
    });

    test('a __proto__ field is an unknown field, not a way in', async () => {
      const payload = `{"__proto__": {"published": true}, "slug": "p", "title": "P", "blocks": []}`;
      const response = await raw(payload);
      assertInvalidBody(response, '/__proto__');
      assert.equal(({} as Record<string, unknown>).published, undefined);
      await assertUnharmed('__proto__');
    });

    test('a body holding \\u0000 answers 400, wherever it is', async () => {
      for (const payload of [
        '{"slug": "a", "title": "bad\\u0000title", "blocks": []}',
        '{"slug": "a\\u0000", "title": "t", "blocks": []}',
        '{"slug": "a", "title": "t", "blocks": [{"type": "paragraph", "content": [{"text": "x\\u0000y"}]}]}',
        '{"slug": "a", "title": "t", "blocks": [], "seo": {"jsonLd": {"k\\u0000": 1}}}',
        '{"slug": "a", "title": "t", "blocks": [], "seo": {"jsonLd": {"nested": ["\\u0000"]}}}',
      ]) {
        assertError(await raw(payload), 400, 'invalid_body', payload);
      }
      assertError(
        await raw('{"name": "a\\u0000b"}', undefined, 'POST', '/admin/v1/projects'),
        400,
        'invalid_body',
        'project name',
      );
      await assertUnharmed('NUL');
    });

    test('a number too large for a double answers 400, not stored as null', async () => {
      for (const [payload, path] of [
        ['{"slug": "a", "title": "t", "blocks": [], "seo": {"jsonLd": {"n": 1e400}}}', '/seo/jsonLd/n'],
        ['{"slug": "a", "title": "t", "blocks": [], "seo": {"jsonLd": {"n": [-2E+999]}}}', '/seo/jsonLd/n/0'],
        [
          `{"slug": "a", "title": "t", "blocks": [], "seo": {"jsonLd": {"n": ${'9'.repeat(400)}}}}`,
          '/seo/jsonLd/n',
        ],
      ] as const) {
        assertInvalidBody(await raw(payload), path);
      }
      await assertUnharmed('1e400');
      // Large but finite numbers, and ones that round to zero, are numbers as JavaScript reads them.
      const finite =
        '{"slug": "f", "title": "t", "blocks": [], "seo": {"jsonLd": {"n": 1.5e308, "m": 1e-400}}}';
      const stored = await raw(finite, undefined, 'PUT', articleUrl('finite'));
      assert.equal(stored.statusCode, 201, stored.body);
      assert.deepEqual(stored.json().data.seo.jsonLd, { n: 1.5e308, m: 0 });
    });

    test('wrong types answer 400 naming the field: no coercion', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ published: 'true' }, '/published'],
        [{ published: 1 }, '/published'],
        [{ title: 5 }, '/title'],
        [{ title: null }, '/title'],
        [{ slug: 12 }, '/slug'],
        [{ blocks: {} }, '/blocks'],
        [{ blocks: 'text' }, '/blocks'],
        [{ related: 'a' }, '/related'],
        [{ related: [1] }, '/related/0'],
        [{ seo: [] }, '/seo'],
        [{ seo: 'x' }, '/seo'],
        [{ seo: { title: 5 } }, '/seo/title'],
        [{ seo: { jsonLd: [] } }, '/seo/jsonLd'],
        [{ blocks: [{ type: 'heading', level: '2', text: 'x' }] }, '/blocks/0/level'],
        [{ blocks: [{ type: 'heading', level: 5, text: 'x' }] }, '/blocks/0/level'],
        [{ blocks: [{ type: 'list', ordered: 'yes', items: [] }] }, '/blocks/0/ordered'],
        [
          { blocks: [{ type: 'paragraph', content: [{ text: 'x', bold: 'true' }] }] },
          '/blocks/0/content/0/bold',
        ],
        [{ blocks: [{ type: 'paragraph' }] }, '/blocks/0/content'],
        [{ blocks: [{ type: 'marquee', text: 'x' }] }, '/blocks/0/type'],
        [
          { blocks: [{ type: 'paragraph', content: [{ text: 'x', rel: 'r'.repeat(81) }] }] },
          '/blocks/0/content/0/rel',
        ],
      ];
      for (const [override, path] of cases) {
        assertInvalidBody(
          await t.admin('PUT', articleUrl(), { ...newArticle(), ...override }),
          path,
          JSON.stringify(override),
        );
      }
      for (const missing of ['slug', 'title', 'blocks']) {
        const body: Record<string, unknown> = { ...newArticle() };
        delete body[missing];
        assertInvalidBody(await t.admin('PUT', articleUrl(), body), `/${missing}`, `without ${missing}`);
      }
      await assertUnharmed('wrong types');
    });

    test('a replace refused for bad input leaves the article as it was', async () => {
      const original = (await t.admin('GET', articleUrl('existing'))).json().data;
      t.clock.advance(60_000);
      const bad = [
        { ...newArticle({ slug: 'existing' }), published: 'false' },
        { ...newArticle({ slug: 'existing' }), seo: { canonicalPath: '/x' } },
        newArticle({
          slug: 'existing',
          blocks: [{ type: 'cta', heading: 'h', buttonLabel: 'b', buttonHref: 'javascript:x' }],
        }),
      ];
      for (const body of bad) {
        assertError(await t.admin('PUT', articleUrl('existing'), body), 400, 'invalid_body');
      }
      assert.deepEqual((await t.admin('GET', articleUrl('existing'))).json().data, original);
      await assertUnharmed('bad replace');
    });

    test('a deeply nested jsonLd is refused or stored and served, never a crash', async () => {
      const key = await t.createKey(projectId);
      for (const depth of [1_000, 100_000]) {
        const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
        const payload = `{"slug": "deep-${depth}", "title": "Deep", "blocks": [], "published": true, "seo": {"jsonLd": {"a": ${nested}}}}`;
        const response = await raw(payload, undefined, 'PUT', articleUrl(`deep-${depth}`));
        assert.ok(
          [201, 400].includes(response.statusCode),
          `${depth}: ${response.statusCode} ${response.body.slice(0, 200)}`,
        );
        if (response.statusCode === 400) {
          assertError(response, 400, 'invalid_body');
          continue;
        }
        assert.equal((await t.admin('GET', articleUrl(`deep-${depth}`))).statusCode, 200);
        const served = await t.deliver(key, `/api/v1/projects/${projectId}/content/by-slug/deep-${depth}`);
        assert.equal(served.statusCode, 200, `${depth}: delivery`);
        assert.equal((await t.deliver(key, `/api/v1/projects/${projectId}/content`)).statusCode, 200);
      }
      const after = await t.admin('PUT', articleUrl('after'), newArticle());
      assert.equal(after.statusCode, 201);
    });

    test('unknown routes and methods answer 404 in the contract shape', async () => {
      const cases: [string, string][] = [
        ['GET', '/'],
        ['GET', '/nope'],
        ['GET', '/admin/v1'],
        ['GET', '/admin/v1/nope'],
        ['GET', '/admin/v2/projects'],
        ['GET', `/admin/v1/projects/${projectId}/unknown`],
        ['POST', `/admin/v1/projects/${projectId}/articles/existing/archive`],
        ['POST', articleUrl('existing')],
        ['DELETE', `/admin/v1/projects/${projectId}`],
        ['PUT', '/admin/v1/projects'],
        ['GET', '/api/v2/projects/x/content'],
      ];
      for (const [method, url] of cases) {
        const response = await t.admin(method as 'GET', url);
        assertError(response, 404, 'not_found', `${method} ${url}`);
      }
      const anonymous = await t.app.inject({ method: 'GET', url: '/nope' });
      assertError(anonymous, 404, 'not_found', 'without a token');
      // A body sent to no route is not read: what it holds cannot turn the 404 into a 400 or 413.
      const bodies: [string | Buffer, Record<string, string>][] = [
        ['{not json', { 'content-type': 'application/json' }],
        [Buffer.from([0xff, 0xfe]), { 'content-type': 'application/json' }],
        ['{}'.padEnd(MIB + 1), { 'content-type': 'application/json' }],
        ['{}', { 'content-type': 'application/json', 'content-encoding': 'gzip' }],
        ['x', { 'content-type': 'text/plain' }],
      ];
      for (const [payload, headers] of bodies) {
        for (const [method, url] of [
          ['POST', '/nope'],
          ['POST', articleUrl('existing')],
          ['PUT', '/admin/v1/projects'],
        ] as const) {
          const response = await raw(payload, headers, method, url);
          assertError(response, 404, 'not_found', `${method} ${url} with ${JSON.stringify(headers)}`);
        }
      }
      await assertUnharmed('unknown routes');
    });

    test('an id or slug path segment holding NUL or broken percent-encoding is refused cleanly', async () => {
      for (const url of [
        `/admin/v1/projects/${projectId}/articles/a%00b`,
        `/admin/v1/projects/pr%00j/articles`,
        `/admin/v1/projects/${projectId}/articles/%E0%A4%A`,
        `/admin/v1/projects/${'x'.repeat(5000)}`,
      ]) {
        const response = await t.admin('GET', url);
        assert.ok([400, 404].includes(response.statusCode), `${url.slice(0, 60)} → ${response.statusCode}`);
        assert.equal(response.json().success, false);
      }
      await assertUnharmed('hostile paths');
    });

    test('a 1 MiB body of invalid blocks of every kind answers 400 with capped details', async () => {
      const kinds = INVALID_BLOCKS;
      const blocks: unknown[] = [];
      for (let i = 0, size = 0; size < MIB - 4096; i++) {
        blocks.push(kinds[i % kinds.length]!(i));
        size += JSON.stringify(blocks.at(-1)).length + 1;
      }
      const started = performance.now();
      const response = await t.admin('PUT', articleUrl(), { ...newArticle(), blocks });
      const elapsed = performance.now() - started;
      const error = assertError(response, 400, 'invalid_body');
      assert.equal(error.details?.length, 100);
      assert.deepEqual(error.details?.[0], { path: '/blocks/0/level', message: 'must be integer' });
      assert.match(error.message, /\(and at least 100 more problems\)\.$/);
      // Only a backstop against the seconds this took when every error was collected.
      assert.ok(elapsed < 5_000, `answered in ${Math.round(elapsed)} ms`);
      await assertUnharmed('1 MiB of invalid blocks');
    });
  });
}

describe('a body with thousands of problems', () => {
  test('gets a bounded list of details and a message that says there are more', async () => {
    const t = await createTestApp('sqlite');
    try {
      const projectId = (await t.createProject()).id;
      const content = Array.from({ length: 500 }, () => ({ text: 'x', href: 'javascript:alert(1)' }));
      const response = await t.admin('PUT', `/admin/v1/projects/${projectId}/articles/many`, {
        slug: 'many',
        title: 'Many',
        blocks: [{ type: 'paragraph', content }],
      });
      assert.equal(response.statusCode, 400);
      const { error } = response.json();
      assert.equal(error.details.length, 100);
      assert.match(error.message, /\(and at least 100 more problems\)\.$/);
    } finally {
      await t.close();
    }
  });
});
