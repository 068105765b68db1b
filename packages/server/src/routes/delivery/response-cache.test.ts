import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { upsertArticle } from '../../services/articles.ts';
import { listPublishedArticles, streamSitemap } from '../../services/delivery.ts';
import { wholeText } from '../../services/json-runs.ts';
import { createListingIndex } from '../../services/listing-index.ts';
import * as articles from '../../store/articles.ts';
import { findProject } from '../../store/projects.ts';
import { DIALECTS } from '../../test/databases.ts';
import { buildSecondApp, createTestApp, newArticle, type TestApp } from '../../test/test-app.ts';

for (const dialect of DIALECTS) {
  describe(`delivery responses: encodings and cache [${dialect}]`, () => {
    let t: TestApp;
    let projectId: string;
    let key: string;
    beforeEach(async () => {
      t = await createTestApp(dialect);
      projectId = (await t.createProject({ websiteUrl: 'https://www.example.com', articlesPath: '/blog' }))
        .id;
      key = await t.createKey(projectId);
      for (let i = 0; i < 5; i++) {
        t.clock.advance(1000);
        await t.putArticle(projectId, `a${i}`, newArticle({ published: true }));
      }
    });
    afterEach(() => t.close());

    const list = `/api/v1/projects/${'{id}'}/content?limit=5`;
    const url = () => list.replace('{id}', projectId);

    test('br and gzip by Accept-Encoding, each decoding to the identity bytes, with Vary and its own tag', async () => {
      const plain = await t.deliver(key, url());
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.equal(plain.headers.vary, 'accept-encoding');
      const br = await t.deliver(key, url(), { 'accept-encoding': 'gzip, deflate, br' });
      const gz = await t.deliver(key, url(), { 'accept-encoding': 'gzip' });
      assert.equal(br.headers['content-encoding'], 'br');
      assert.equal(gz.headers['content-encoding'], 'gzip');
      assert.equal(brotliDecompressSync(br.rawPayload).toString(), plain.body);
      assert.equal(gunzipSync(gz.rawPayload).toString(), plain.body);
      const tags = new Set([plain.headers.etag, br.headers.etag, gz.headers.etag]);
      assert.equal(tags.size, 3, 'different bytes, different strong tags');
      for (const tag of tags) {
        const again = await t.deliver(key, url(), {
          'if-none-match': tag as string,
          'accept-encoding': 'br',
        });
        assert.equal(again.statusCode, 304, String(tag));
        assert.equal(again.headers.etag, tag);
        assert.equal(again.headers['content-encoding'], undefined);
        assert.equal(again.body, '');
      }
    });

    test('If-None-Match: * on a cold cache: 404 for an unknown slug, the warm tag for a known one', async () => {
      const missing = await t.deliver(key, `/api/v1/projects/${projectId}/content/by-slug/nope`, {
        'if-none-match': '*',
      });
      assert.equal(missing.statusCode, 404, 'no current representation: * does not match');
      const cold = await t.deliver(key, url(), { 'if-none-match': '*' });
      assert.equal(cold.statusCode, 304);
      const warm = await t.deliver(key, url(), { 'if-none-match': '*' });
      assert.equal(cold.headers.etag, warm.headers.etag);
      assert.equal(cold.headers.etag, (await t.deliver(key, url())).headers.etag);
    });

    test('a small streamed answer goes uncompressed, as its cached bytes then go', async () => {
      const sitemap = `/api/v1/projects/${projectId}/content/sitemap`;
      for (const method of ['HEAD', 'GET'] as const) {
        await t.putArticle(projectId, 'a0', newArticle({ title: `for ${method}`, published: true }));
        const read = () =>
          t.app.inject({
            method,
            url: sitemap,
            headers: { authorization: `Bearer ${key}`, 'accept-encoding': 'gzip, br' },
          });
        const streamed = await read();
        const cached = await read();
        assert.equal(streamed.headers['content-encoding'], undefined, method);
        assert.equal(cached.headers['content-encoding'], undefined, method);
        assert.equal(streamed.headers.etag, cached.headers.etag, method);
        assert.equal(streamed.body, cached.body, method);
      }
    });

    test('a second server instance with its own cache serves a write made through the first', async () => {
      const other = await buildSecondApp(t);
      try {
        const read = () =>
          other.inject({ url: url(), headers: { authorization: `Bearer ${key}` } }).then((r) => r.json());
        assert.equal((await read()).data[0].title, (await t.deliver(key, url())).json().data[0].title);
        await t.putArticle(
          projectId,
          'a4',
          newArticle({ slug: 'changed', title: 'Changed on instance one', published: true }),
        );
        assert.equal((await read()).data[0].title, 'Changed on instance one');
        await t.admin('POST', `/admin/v1/projects/${projectId}/articles/a4/unpublish`);
        assert.equal((await read()).pagination.total, 4);
      } finally {
        await other.close();
      }
    });

    test('changing the articles path rebuilds what every article serves', async () => {
      await t.admin('PATCH', `/admin/v1/projects/${projectId}`, { articlesPath: '/news' });
      const data = (await t.deliver(key, url())).json().data as Array<{
        slug: string;
        seo: { canonicalPath: string; jsonLd: { url: string } };
      }>;
      for (const item of data) {
        assert.equal(item.seo.canonicalPath, `/news/${item.slug}`);
        assert.equal(item.seo.jsonLd.url, `https://www.example.com/news/${item.slug}`);
      }
      const stored = await t.db.selectFrom('articles').select('served').execute();
      assert.ok(stored.every((row) => row.served?.includes('"/news/')));
    });

    test('articles stored before the served column are listed as they would be served', async () => {
      const project = (await findProject(t.db, projectId))!;
      const body = async () => {
        const deps = { db: t.db, now: t.clock.now, listing: createListingIndex(), changeHistory: '' };
        const { data, pagination } = await listPublishedArticles(deps, project, { page: 1, limit: 10 });
        return { data: await wholeText(data), pagination };
      };
      const before = await body();
      await t.db.updateTable('articles').set({ served: null }).where('id', 'in', ['a1', 'a3']).execute();
      assert.deepEqual(await body(), before);
      assert.equal(JSON.parse(before.data).length, 5);
    });
  });

  describe(`listing index [${dialect}]`, () => {
    test('pages through seeks equal the plain order, across strides, versions and deep pages', async () => {
      const t = await createTestApp(dialect);
      try {
        const project = await t.createProject();
        const deps = { db: t.db, now: t.clock.now };
        for (let i = 0; i < 61; i++) {
          // Pairs published at the same instant exercise the id tie-break.
          if (i % 2 === 0) t.clock.advance(1000);
          await upsertArticle(
            deps,
            project.id,
            `id${String(i).padStart(3, '0')}`,
            newArticle({ published: true }),
          );
        }
        const expected = (
          await articles.listPublishedArticles(t.db, project.id, { limit: 1000, offset: 0 })
        ).map((r) => r.id);
        for (const [stride, stridesPerWalk] of [
          [1, 1],
          [3, 2],
          [3, 1000],
          [7, 1],
          [64, 1000],
        ] as const) {
          const index = createListingIndex(stride, stridesPerWalk);
          const row = (await findProject(t.db, project.id))!;
          assert.equal(await index.total(t.db, row), 61);
          for (const limit of [1, 5, 20]) {
            // Deep pages first, so cursors are learnt out of order too.
            const pages = Math.ceil(61 / limit);
            const seen: string[][] = [];
            for (let page = pages; page >= 1; page--) {
              seen[page - 1] = (await index.page(t.db, row, (page - 1) * limit, limit)).map((r) => r.id);
            }
            assert.deepEqual(seen.flat(), expected, `stride ${stride}/${stridesPerWalk}, limit ${limit}`);
          }
          await upsertArticle(deps, project.id, 'id000', newArticle({ published: false }));
          const next = (await findProject(t.db, project.id))!;
          assert.equal(await index.total(t.db, next), 60, 'a new version is counted again');
          assert.ok(!(await index.page(t.db, next, 0, 100)).some((r) => r.id === 'id000'));
          // Published again, it keeps its first publishedAt, and so its place in the order.
          await upsertArticle(deps, project.id, 'id000', newArticle({ published: true }));
        }
        // Many deep pages asked for at once, as a server under load does: cursors learnt by
        // concurrent walks must not be appended twice.
        const fresh = (await findProject(t.db, project.id))!;
        const full = (await articles.listPublishedArticles(t.db, project.id, { limit: 1000, offset: 0 })).map(
          (r) => r.id,
        );
        for (const [stride, stridesPerWalk] of [
          [1, 1000],
          [2, 3],
          [5, 1],
        ] as const) {
          const index = createListingIndex(stride, stridesPerWalk);
          const offsets = [40, 12, 55, 3, 27, 58, 33, 19, 47, 8, 60, 24];
          const pages = await Promise.all(offsets.map((offset) => index.page(t.db, fresh, offset, 1)));
          assert.deepEqual(
            pages.map((rows) => rows[0]?.id),
            offsets.map((offset) => full[offset]),
            `stride ${stride}/${stridesPerWalk}`,
          );
          const again = await Promise.all(offsets.map((offset) => index.page(t.db, fresh, offset, 1)));
          assert.deepEqual(
            again.map((rows) => rows[0]?.id),
            offsets.map((offset) => full[offset]),
          );
        }
      } finally {
        await t.close();
      }
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`a flood of distinct URLs [${dialect}]`, () => {
    test('keeps the cache within its bound, counted at real cost, and the answers asked for again in it', async () => {
      const maxBytes = 64 * 1024;
      const t = await createTestApp(dialect, { clockStart: Date.now(), responseCacheBytes: maxBytes });
      try {
        await t.app.listen({ port: 0, host: '127.0.0.1' });
        const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
        const projectId = (await t.createProject()).id;
        const key = await t.createKey(projectId);
        for (let i = 0; i < 3; i++)
          await t.putArticle(projectId, `a${i}`, newArticle({ slug: `s${i}`, published: true }));
        const hot = [
          `/api/v1/projects/${projectId}/content`,
          `/api/v1/projects/${projectId}/content/by-slug/s1`,
        ];
        for (const url of [...hot, ...hot]) assert.equal((await t.deliver(key, url)).statusCode, 200);

        // Pages past the end: each costs the server one count, and is asked for once.
        for (let page = 2; page < 5_002; page++) {
          const response = await t.deliver(key, `/api/v1/projects/${projectId}/content?page=${page}`);
          assert.equal(response.json().data.length, 0);
        }
        const use = (
          t.app as unknown as { responseCacheUse: () => { bytes: number; entries: number } }
        ).responseCacheUse();
        assert.ok(use.bytes <= maxBytes, `${use.bytes} bytes accounted`);
        // An entry holds at least 500 bytes of heap beyond its body (see http/response-cache.test.ts).
        assert.ok(use.entries * 500 <= maxBytes, `${use.entries} entries in ${maxBytes} bytes`);

        const hits = (t.app as unknown as { fastPathHits: () => number }).fastPathHits;
        const before = hits();
        for (const url of hot) {
          const response = await fetch(`${base}${url}`, {
            headers: { authorization: `Bearer ${key}`, 'accept-encoding': 'identity' },
          });
          assert.equal(response.status, 200);
        }
        assert.equal(hits() - before, 2, 'both answers asked for before the flood were still ready');
      } finally {
        await t.close();
      }
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`sitemap streaming [${dialect}]`, () => {
    test('batches join into one valid document in delivery order', async () => {
      const t = await createTestApp(dialect);
      try {
        const project = await t.createProject({ websiteUrl: 'https://site.example', articlesPath: '/blog' });
        const deps = { db: t.db, now: t.clock.now };
        for (let i = 0; i < 11; i++) {
          if (i % 3 === 0) t.clock.advance(1000);
          await upsertArticle(
            deps,
            project.id,
            `s${String(i).padStart(2, '0')}`,
            newArticle({ slug: `slug-${i}`, published: true }),
          );
        }
        const row = (await findProject(t.db, project.id))!;
        const expected = (
          await articles.listPublishedArticles(t.db, project.id, { limit: 100, offset: 0 })
        ).map((r) => `https://site.example/blog/${r.slug}`);
        for (const batch of [1, 4, 11, 50]) {
          let text = '';
          for await (const chunk of streamSitemap(deps, row, batch)) text += chunk;
          assert.deepEqual(
            (JSON.parse(text) as { url: string }[]).map((e) => e.url),
            expected,
            `batch ${batch}`,
          );
        }
      } finally {
        await t.close();
      }
    });

    test('streamed with compression, then served from the cache with the same tag; 304 on it', async () => {
      const t = await createTestApp(dialect);
      try {
        const projectId = (await t.createProject({ websiteUrl: 'https://site.example' })).id;
        const key = await t.createKey(projectId);
        for (let i = 0; i < 30; i++) await t.putArticle(projectId, `p${i}`, newArticle({ published: true }));
        const url = `/api/v1/projects/${projectId}/content/sitemap`;
        const streamed = await t.deliver(key, url, { 'accept-encoding': 'br' });
        assert.equal(streamed.headers['content-encoding'], 'br');
        const plain = await t.deliver(key, url);
        assert.equal(brotliDecompressSync(streamed.rawPayload).toString(), plain.body);
        assert.equal(plain.json().data.length, 30);
        const cached = await t.deliver(key, url, { 'accept-encoding': 'br' });
        assert.equal(cached.headers.etag, streamed.headers.etag, 'one tag for one version and encoding');
        assert.equal(
          (await t.deliver(key, url, { 'if-none-match': plain.headers.etag as string })).statusCode,
          304,
        );
        await t.putArticle(projectId, 'p0', newArticle({ title: 'changed', published: true }));
        const fresh = await t.deliver(key, url, { 'if-none-match': plain.headers.etag as string });
        assert.equal(fresh.statusCode, 200);
        assert.notEqual(fresh.headers.etag, plain.headers.etag);
      } finally {
        await t.close();
      }
    });
  });
}
