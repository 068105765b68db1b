import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { PreviewListItem } from '@folio/schema';
import { assertError, assertInvalidBody } from '../../test/assertions.ts';
import { DIALECTS } from '../../test/databases.ts';
import { createTestApp, newArticle, START_TIME, type TestApp } from '../../test/test-app.ts';

const iso = (ms: number) => new Date(ms).toISOString();
const HOUR = 3_600_000;
const PREVIEW_URL = 'https://www.example.com/api/preview?slug={slug}&token={token}';

for (const dialect of DIALECTS) {
  describe(`preview keys and preview links [${dialect}]`, () => {
    let t: TestApp;
    let projectId: string;
    let contentKey: string;
    let previewKey: string;
    beforeEach(async () => {
      t = await createTestApp(dialect);
      projectId = (await t.createProject({ websiteUrl: 'https://www.example.com', articlesPath: '/blog' }))
        .id;
      contentKey = await t.createKey(projectId);
      previewKey = await t.createKey(projectId, 'preview');
    });
    afterEach(() => t.close());

    const base = () => `/api/v1/projects/${projectId}/content`;
    const one = (id: string) => `/admin/v1/projects/${projectId}/articles/${id}`;
    const put = (id: string, body: unknown) => t.admin('PUT', one(id), body);
    const putDraft = (id: string, body: unknown) => t.admin('PUT', `${one(id)}/draft`, body);
    const previewList = async () => {
      const response = await t.deliver(previewKey, `${base()}?limit=100`);
      assert.equal(response.statusCode, 200, response.body);
      return response.json().data as PreviewListItem[];
    };

    /** Published `live`, published `changed` with a draft renaming it, unpublished `hidden`. */
    async function threeStates() {
      await put('live', newArticle({ slug: 'live', title: 'Live', published: true }));
      t.clock.advance(1_000);
      await put('changed', newArticle({ slug: 'changed', title: 'Changed', published: true }));
      t.clock.advance(1_000);
      await putDraft('changed', newArticle({ slug: 'changed-draft', title: 'Changed (draft)' }));
      t.clock.advance(1_000);
      await put('hidden', newArticle({ slug: 'hidden', title: 'Hidden' }));
    }

    test('a preview key is folio_pk_, listed with its kind; any other kind is refused', async () => {
      assert.match(previewKey, /^folio_pk_[A-Za-z0-9_-]{40,}$/);
      const keys = (await t.admin('GET', `/admin/v1/projects/${projectId}/keys`)).json().data;
      assert.deepEqual(keys.map((k: { kind: string }) => k.kind).sort(), ['content', 'preview']);
      const bad = await t.admin('POST', `/admin/v1/projects/${projectId}/keys`, { name: 'x', kind: 'admin' });
      assertInvalidBody(bad, '/kind');
    });

    test('the list shows every article in the preview perspective, with status, never-published first', async () => {
      await threeStates();
      t.clock.advance(1_000);
      await putDraft('fresh', newArticle({ slug: 'fresh', title: 'Fresh draft' }));
      const list = await previewList();
      assert.deepEqual(
        list.map((article) => [article.id, article.status, article.slug]),
        [
          ['fresh', 'unpublished', 'fresh'],
          ['hidden', 'unpublished', 'hidden'],
          ['changed', 'changed', 'changed-draft'],
          ['live', 'published', 'live'],
        ],
      );
      const changed = list.find((article) => article.id === 'changed')!;
      assert.equal(changed.title, 'Changed (draft)');
      assert.equal(changed.updatedAt, iso(START_TIME + 2_000), "the draft's updatedAt");
      assert.equal(changed.seo.canonicalPath, '/blog/changed-draft');
      assert.equal(list.find((article) => article.id === 'hidden')!.publishedAt, null);
      // A content key sees what is published, as before.
      const content = (await t.deliver(contentKey, base())).json().data;
      assert.deepEqual(
        content.map((article: { slug: string }) => article.slug),
        ['changed', 'live'],
      );
      assert.ok(content.every((article: object) => !('status' in article)));
    });

    test('never-published articles are ordered by the updatedAt they show, newest first', async () => {
      await put('old', newArticle({ slug: 'old' }));
      t.clock.advance(1_000);
      await put('newer', newArticle({ slug: 'newer' }));
      t.clock.advance(1_000);
      await putDraft('old', newArticle({ slug: 'old' }));
      assert.deepEqual(
        (await previewList()).map((article) => article.id),
        ['old', 'newer'],
      );
    });

    test('by-slug finds an article by its slug in the perspective only; related links resolve there', async () => {
      await threeStates();
      await putDraft(
        'live',
        newArticle({ slug: 'live', title: 'Live', related: ['changed-draft', 'hidden', 'changed'] }),
      );
      const renamed = await t.deliver(previewKey, `${base()}/by-slug/changed`);
      assertError(renamed, 404, 'not_found', 'the stored slug of a renamed article');
      const response = await t.deliver(previewKey, `${base()}/by-slug/changed-draft`);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().data.status, 'changed');
      const live = (await t.deliver(previewKey, `${base()}/by-slug/live`)).json().data;
      assert.deepEqual(
        live.related.map((link: { slug: string; title: string }) => [link.slug, link.title]),
        [
          ['changed-draft', 'Changed (draft)'],
          ['hidden', 'Hidden'],
        ],
      );
      assert.equal(live.related[0].canonicalPath, '/blog/changed-draft');
      assert.equal((await t.deliver(contentKey, `${base()}/by-slug/hidden`)).statusCode, 404);
    });

    test('preview answers are private, no-store, and never share the content answers or their tags', async () => {
      await threeStates();
      for (const path of ['', '/by-slug/live', '/sitemap', '/changes']) {
        const content = await t.deliver(contentKey, `${base()}${path}`);
        const preview = await t.deliver(previewKey, `${base()}${path}`);
        assert.equal(preview.statusCode, 200, `${path}: ${preview.body}`);
        assert.equal(preview.headers['cache-control'], 'private, no-store', path);
        assert.notEqual(preview.headers.etag, content.headers.etag, path);
        const again = await t.deliver(contentKey, `${base()}${path}`, {
          'if-none-match': String(preview.headers.etag),
        });
        assert.equal(again.statusCode, 200, `${path}: a preview tag does not validate a content answer`);
        assert.equal(
          (await t.deliver(contentKey, `${base()}${path}`)).headers['cache-control'],
          'private, no-cache',
        );
      }
      // Over a socket, where cached content answers are sent before the framework runs.
      const auth = (key: string) => ({ headers: { authorization: `Bearer ${key}` } });
      for (let i = 0; i < 3; i++) {
        const content = (await (await t.fetch(base(), auth(contentKey))).json()).data;
        assert.equal(content.length, 2);
        const preview = await t.fetch(base(), auth(previewKey));
        assert.equal(preview.headers.get('cache-control'), 'private, no-store');
        assert.equal(((await preview.json()) as { data: unknown[] }).data.length, 3);
      }
      // Its refusals too: a missing article, a bad query, a bad cursor.
      for (const path of ['/by-slug/nope', '?limit=abc', '/changes?since=garbage']) {
        const refused = await t.deliver(previewKey, `${base()}${path}`);
        assert.ok(refused.statusCode >= 400, path);
        assert.equal(refused.headers['cache-control'], 'private, no-store', path);
      }
    });

    test('the sitemap lists published articles only, for a preview key too', async () => {
      await threeStates();
      const sitemap = (await t.deliver(previewKey, `${base()}/sitemap`)).json().data;
      assert.deepEqual(
        sitemap.map((entry: { url: string }) => entry.url),
        ['https://www.example.com/blog/changed', 'https://www.example.com/blog/live'],
      );
      // Streamed for every request, never built whole: many readers of a large one ran out of memory.
      const headers = { authorization: `Bearer ${previewKey}` };
      for (let i = 0; i < 2; i++) {
        const streamed = await t.fetch(`${base()}/sitemap`, { headers });
        assert.equal(streamed.headers.get('transfer-encoding'), 'chunked');
        assert.equal(streamed.headers.get('content-length'), null);
        assert.deepEqual(((await streamed.json()) as { data: unknown }).data, sitemap);
        const tag = streamed.headers.get('etag')!;
        const again = await t.fetch(`${base()}/sitemap`, { headers: { ...headers, 'if-none-match': tag } });
        assert.equal(again.status, 304);
      }
    });

    test('the changes feed in the preview perspective keeps a replica of every article, drafts shown', async () => {
      await threeStates();
      const replica = new Map<string, PreviewListItem>();
      const sync = async (since?: string) => {
        let cursor = since;
        for (;;) {
          const query = cursor ? `?since=${cursor}&limit=2` : '?limit=2';
          const response = await t.deliver(previewKey, `${base()}/changes${query}`);
          assert.equal(response.statusCode, 200, response.body);
          const page = response.json().data;
          for (const change of page.changes) {
            if (change.type === 'upsert') replica.set(change.article.id, change.article);
            else replica.delete(change.id);
          }
          cursor = page.cursor;
          if (!page.hasMore) return cursor!;
        }
      };
      const expectReplica = async () => {
        const list = await previewList();
        assert.deepEqual(
          [...replica.values()].sort((a, b) => a.id.localeCompare(b.id)),
          list.sort((a, b) => a.id.localeCompare(b.id)),
        );
      };
      let cursor = await sync();
      await expectReplica();
      await putDraft('live', newArticle({ slug: 'live', title: 'Live, edited' }));
      await t.admin('DELETE', one('hidden'));
      await t.admin('POST', `${one('changed')}/unpublish`);
      cursor = await sync(cursor);
      await expectReplica();
      assert.equal(replica.get('changed')!.status, 'unpublished');
      assert.equal(replica.has('hidden'), false);
      // A content key's cursor means nothing here.
      const contentCursor = (await t.deliver(contentKey, `${base()}/changes`)).json().data.cursor;
      assertError(
        await t.deliver(previewKey, `${base()}/changes?since=${contentCursor}`),
        400,
        'invalid_query',
        'a content cursor on the preview feed',
      );
      assert.ok(cursor);
    });

    describe('preview links', () => {
      const link = (id: string) => t.admin('POST', `${one(id)}/preview-link`);
      const setPreviewUrl = (previewUrl: unknown) =>
        t.admin('PATCH', `/admin/v1/projects/${projectId}`, { previewUrl });

      test('previewUrl must be an http(s) URL with {token}; the project shows it as set', async () => {
        for (const bad of [
          'https://www.example.com/preview?slug={slug}',
          'ftp://www.example.com/{token}',
          'javascript:alert(1)//{token}',
          '/relative/{token}',
          'https://www.example.com/{token}/{lang}',
          'not a url {token}',
          '',
          ' ',
          ` ${PREVIEW_URL}`,
        ]) {
          assertInvalidBody(await setPreviewUrl(bad), '/previewUrl', JSON.stringify(bad));
        }
        assertInvalidBody(
          await t.admin('POST', '/admin/v1/projects', { name: 'x', previewUrl: '' }),
          '/previewUrl',
          'an empty previewUrl on create',
        );
        const set = await setPreviewUrl(PREVIEW_URL);
        assert.equal(set.statusCode, 200, set.body);
        assert.equal(set.json().data.previewUrl, PREVIEW_URL);
        assert.equal((await setPreviewUrl(null)).json().data.previewUrl, null);
        const created = await t.admin('POST', '/admin/v1/projects', { name: 'x', previewUrl: PREVIEW_URL });
        assert.equal(created.json().data.previewUrl, PREVIEW_URL);
      });

      test('no previewUrl: 409; unknown article: 404', async () => {
        await put('a', newArticle({ slug: 'a' }));
        assertError(await link('a'), 409, 'conflict', 'no previewUrl');
        await setPreviewUrl(PREVIEW_URL);
        assertError(await link('nope'), 404, 'not_found', 'no article');
      });

      test('a link fills {slug} (the draft’s) and {token}; the token reads that one article by slug', async () => {
        await setPreviewUrl(PREVIEW_URL);
        await threeStates();
        const response = await link('changed');
        assert.equal(response.statusCode, 201, response.body);
        const { url, token, expiresAt } = response.json().data;
        assert.match(token, /^folio_pt_[A-Za-z0-9_-]{40,}$/);
        assert.equal(expiresAt, iso(START_TIME + 3_000 + HOUR));
        assert.equal(url, `https://www.example.com/api/preview?slug=changed-draft&token=${token}`);

        const read = await t.deliver(token, `${base()}/by-slug/changed-draft`);
        assert.equal(read.statusCode, 200, read.body);
        assert.equal(read.json().data.title, 'Changed (draft)');
        assert.equal(read.json().data.status, 'changed');
        assert.equal(read.headers['cache-control'], 'private, no-store');
        // Any other use answers 401.
        for (const path of [
          '/by-slug/live',
          '/by-slug/changed',
          '/by-slug/nothing',
          '',
          '/sitemap',
          '/changes',
        ]) {
          assertError(await t.deliver(token, `${base()}${path}`), 401, 'unauthorized', path || 'list');
        }
        assertError(
          await t.deliver(token, `/admin/v1/projects/${projectId}/articles`),
          401,
          'unauthorized',
          'admin',
        );
        const otherProject = (await t.createProject()).id;
        assertError(
          await t.deliver(token, `/api/v1/projects/${otherProject}/content/by-slug/changed-draft`),
          401,
          'unauthorized',
          'another project',
        );
        // It follows the article: published, its slug is the stored one.
        await t.admin('POST', `${one('changed')}/publish`);
        assert.equal(
          (await t.deliver(token, `${base()}/by-slug/changed-draft`)).json().data.status,
          'published',
        );
      });

      test('a token expires after an hour and dies with its article', async () => {
        await setPreviewUrl(PREVIEW_URL);
        await put('a', newArticle({ slug: 'a' }));
        await put('b', newArticle({ slug: 'b' }));
        const tokenA = (await link('a')).json().data.token;
        const tokenB = (await link('b')).json().data.token;
        t.clock.advance(HOUR - 1);
        assert.equal((await t.deliver(tokenA, `${base()}/by-slug/a`)).statusCode, 200);
        t.clock.advance(1);
        assertError(await t.deliver(tokenA, `${base()}/by-slug/a`), 401, 'unauthorized', 'expired');
        const fresh = (await link('b')).json().data.token;
        await t.admin('DELETE', one('b'));
        await put('b', newArticle({ slug: 'b' }));
        for (const token of [tokenB, fresh]) {
          assertError(await t.deliver(token, `${base()}/by-slug/b`), 401, 'unauthorized', 'deleted article');
        }
      });
    });
  });
}
