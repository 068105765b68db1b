import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, test } from 'node:test';
import pg from 'pg';
import { upsertArticle } from '../services/articles.ts';
import { DIALECTS } from '../test/databases.ts';
import { buildSecondApp, createTestApp, newArticle, type TestApp } from '../test/test-app.ts';

const hitsOf = (t: TestApp) => (t.app as unknown as { fastPathHits: () => number }).fastPathHits();

for (const dialect of DIALECTS) {
  describe(`cached delivery answers over HTTP [${dialect}]`, () => {
    let t: TestApp;
    let base: string;
    let projectId: string;
    let key: string;
    beforeEach(async () => {
      t = await createTestApp(dialect, { clockStart: Date.now() });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      projectId = (await t.createProject({ websiteUrl: 'https://www.example.com' })).id;
      key = await t.createKey(projectId);
      for (let i = 0; i < 3; i++) {
        t.clock.advance(1000);
        await t.putArticle(projectId, `a${i}`, newArticle({ slug: `s${i}`, published: true }));
      }
    });
    afterEach(() => t.close());

    const get = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${base}/api/v1/projects/${projectId}/content${path}`, {
        headers: { authorization: `Bearer ${key}`, 'accept-encoding': 'identity', ...headers },
      });

    test('a repeated request is answered from ready bytes, identical to the full answer', async () => {
      const first = await get('?page=1&limit=20');
      const firstBody = await first.text();
      const hitsBefore = hitsOf(t);
      const second = await get('?page=1&limit=20');
      assert.equal(await second.text(), firstBody);
      for (const header of ['etag', 'content-type', 'cache-control', 'vary']) {
        assert.equal(second.headers.get(header), first.headers.get(header), header);
      }
      const notModified = await get('?page=1&limit=20', { 'if-none-match': first.headers.get('etag')! });
      assert.equal(notModified.status, 304);
      assert.equal(await notModified.text(), '');
      const gets = [await get(''), await get('/by-slug/s1'), await get('/sitemap')];
      assert.ok(gets.every((r) => r.status === 200));
      // By-slug and sitemap: first request fills, second is served ready.
      await get('/by-slug/s1');
      await get('/sitemap');
      const served = hitsOf(t) - hitsBefore;
      assert.ok(served >= 4, `answered ready: ${served}`);
    });

    test('compressed variants are served ready once made', async () => {
      // fetch decodes br itself, so a corrupt variant would fail here.
      // The first use of a key records lastUsedAt: a write, so the next request is checked too.
      await get('', { 'accept-encoding': 'br' });
      const first = await get('', { 'accept-encoding': 'br' });
      assert.equal(first.headers.get('content-encoding'), 'br');
      const body = await first.text();
      const hitsBefore = hitsOf(t);
      const second = await get('', { 'accept-encoding': 'br' });
      assert.equal(second.headers.get('content-encoding'), 'br');
      assert.equal(await second.text(), body);
      assert.equal(second.headers.get('etag'), first.headers.get('etag'));
      assert.equal(hitsOf(t) - hitsBefore, 1);
    });

    test('a revalidation with any encoding’s tag, a list, a weak tag or * is answered 304 ready', async () => {
      const tags = [];
      for (const encoding of ['identity', 'br', 'gzip']) {
        const response = await get('', { 'accept-encoding': encoding });
        await response.arrayBuffer();
        tags.push(response.headers.get('etag')!);
      }
      assert.equal(new Set(tags).size, 3);
      const held = [...tags, `W/${tags[1]}`, `"stale", ${tags[2]}`, '*'];
      for (const header of held) await get('', { 'if-none-match': header });
      const hitsBefore = hitsOf(t);
      for (const header of held) {
        const response = await get('', { 'if-none-match': header });
        assert.equal(response.status, 304, header);
        assert.equal(response.headers.get('vary'), 'accept-encoding');
        assert.equal(await response.text(), '');
      }
      const stale = await get('', { 'if-none-match': '"stale"' });
      assert.equal(stale.status, 200);
      await stale.arrayBuffer();
      assert.equal(hitsOf(t) - hitsBefore, held.length + 1);
    });

    test('a URL answered ready for some header fields gets its own answer for others', async () => {
      const first = await get('');
      const body = await first.text();
      const tag = first.headers.get('etag')!;
      // Served ready twice: each answer the fast path keeps must still vary by the fields below.
      await (await get('')).arrayBuffer();
      await (await get('')).arrayBuffer();
      const hitsBefore = hitsOf(t);
      const notModified = await get('', { 'if-none-match': tag });
      assert.equal(notModified.status, 304);
      const again = await get('');
      assert.equal(again.status, 200);
      assert.equal(await again.text(), body);
      const secondKey = await t.createKey(projectId);
      const otherKey = await fetch(`${base}/api/v1/projects/${projectId}/content`, {
        headers: { authorization: `Bearer ${secondKey}`, 'accept-encoding': 'identity' },
      });
      assert.equal(otherKey.status, 200);
      assert.equal(await otherKey.text(), body);
      assert.equal((await get('', { authorization: 'Bearer folio_ck_not-a-key' })).status, 401);
      assert.equal((await get('', { authorization: `Bearer ${key}` })).status, 200);
      assert.ok(hitsOf(t) - hitsBefore >= 2, 'the 304 and the repeat were answered ready');
    });

    test('after a write, a URL asked with the same fields is answered ready again at once', async () => {
      for (let i = 0; i < 3; i++) await (await get('')).arrayBuffer();
      await t.putArticle(projectId, 'a1', newArticle({ slug: 's1', title: 'Rewritten', published: true }));
      // The first request after the commit re-checks the key and builds the new page.
      const rebuilt = await get('');
      assert.match(await rebuilt.text(), /Rewritten/);
      const hitsBefore = hitsOf(t);
      for (let i = 0; i < 3; i++) assert.match(await (await get('')).text(), /Rewritten/);
      assert.ok(hitsOf(t) - hitsBefore >= 2, `answered ready: ${hitsOf(t) - hitsBefore} of 3`);
    });

    test('a key’s check is made again once it is a minute old, even for a URL it just read', async () => {
      await (await get('')).arrayBuffer();
      await (await get('')).arrayBuffer();
      await (await get('')).arrayBuffer();
      const hitsBefore = hitsOf(t);
      t.clock.advance(61_000);
      const checked = await get('');
      assert.equal(checked.status, 200);
      await checked.arrayBuffer();
      assert.equal(hitsOf(t), hitsBefore, 'the full path checked the key');
    });

    test('a revoked key is refused on the very next request', async () => {
      await get('');
      assert.equal((await get('')).status, 200);
      const keys = (await t.admin('GET', `/admin/v1/projects/${projectId}/keys`)).json().data;
      await t.admin('DELETE', `/admin/v1/projects/${projectId}/keys/${keys[0].id}`);
      assert.equal((await get('')).status, 401);
    });

    test('a write through this server, or by another connection, is served on the next request', async () => {
      await get('');
      await get('');
      await t.putArticle(projectId, 'a2', newArticle({ slug: 's2', title: 'Changed here', published: true }));
      assert.equal(
        ((await (await get('')).json()) as { data: Array<{ title: string }> }).data[0]!.title,
        'Changed here',
      );
      await get('');
      // Another process: its own connection to the same database.
      const other = { db: t.database.connectAgain(), now: t.clock.now };
      await upsertArticle(
        other,
        projectId,
        'a2',
        newArticle({ slug: 's2', title: 'Changed elsewhere', published: true }),
      );
      // As that process does before it answers its client.
      await t.changeFeed.settle();
      assert.equal(
        ((await (await get('')).json()) as { data: Array<{ title: string }> }).data[0]!.title,
        'Changed elsewhere',
      );
    });

    test('another key, another project or a malformed query is never answered from another key’s entry', async () => {
      await get('');
      await get('');
      const other = await t.createProject({ name: 'Other' });
      const otherKey = await t.createKey(other.id);
      const crossed = await fetch(`${base}/api/v1/projects/${projectId}/content`, {
        headers: { authorization: `Bearer ${otherKey}` },
      });
      assert.equal(crossed.status, 403);
      assert.equal((await get('?page=0')).status, 400);
      assert.equal((await fetch(`${base}/api/v1/projects/${projectId}/content`)).status, 401);
    });

    test('an empty since is refused even once the first sync’s answer is ready', async () => {
      assert.equal((await get('/changes')).status, 200);
      assert.equal((await get('/changes')).status, 200);
      const empty = await get('/changes?since=');
      assert.equal(empty.status, 400);
      assert.equal((await empty.json()).error.code, 'invalid_query');
    });

    test('a second server process answers from its own cache, and serves a write made through the first', async () => {
      const second = await buildSecondApp(t, true);
      try {
        await second.listen({ port: 0, host: '127.0.0.1' });
        const fromSecond = async () => {
          const response = await fetch(
            `http://127.0.0.1:${(second.server.address() as AddressInfo).port}/api/v1/projects/${projectId}/content`,
            { headers: { authorization: `Bearer ${key}`, 'accept-encoding': 'identity' } },
          );
          return ((await response.json()) as { data: Array<{ title: string }> }).data[0]!.title;
        };
        const secondHits = () => (second as unknown as { fastPathHits: () => number }).fastPathHits();
        const title = await fromSecond();
        await fromSecond();
        assert.equal(await fromSecond(), title);
        assert.ok(secondHits() >= 1, 'answered from the second process’s cache');
        await t.putArticle(
          projectId,
          'a2',
          newArticle({ slug: 's2', title: 'Changed on the first', published: true }),
        );
        assert.equal(await fromSecond(), 'Changed on the first');
      } finally {
        await second.close();
      }
    });

    // SQLite reads the file's change counter once per batch of requests, by design.
    if (dialect !== 'postgres') return;

    test('cached answers ask the database nothing while the change feed holds its lease', async () => {
      await get('');
      await get('/by-slug/s1');
      const reads = t.tokenReads();
      const hitsBefore = hitsOf(t);
      for (let i = 0; i < 20; i++) assert.equal((await get(i % 2 ? '' : '/by-slug/s1')).status, 200);
      assert.equal(hitsOf(t) - hitsBefore, 20);
      assert.equal(t.tokenReads(), reads);
    });

    test('a write answers only once every server process has taken it in', async () => {
      // A process that holds a lease and acknowledges only when this test says so.
      const listener = new pg.Client({ connectionString: t.database.location.databaseUrl! });
      await listener.connect();
      try {
        const { rows } = await listener.query<{ schema: string }>('select current_schema() as schema');
        const channel = `folio:${rows[0]!.schema}`;
        const barriers: string[] = [];
        listener.on('notification', ({ payload = '' }) => {
          if (payload.startsWith('b ')) barriers.push(payload);
        });
        await listener.query(`listen ${listener.escapeIdentifier(channel)}`);
        await listener.query(`insert into folio_instances values ('slow', now() + interval '30 seconds')`);
        let answered = false;
        const write = t
          .putArticle(projectId, 'a2', newArticle({ slug: 's2', title: 'Held', published: true }))
          .then(() => {
            answered = true;
          });
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(answered, false, 'not answered while a process has not taken the write in');
        // A refused write wrote nothing, and is answered without waiting.
        const barriersBefore = barriers.length;
        const refused = await t.app.inject({
          method: 'PUT',
          url: `/admin/v1/projects/${projectId}/articles/x`,
        });
        assert.equal(refused.statusCode, 401);
        assert.equal(barriers.length, barriersBefore, 'no barrier for a refused request');
        assert.ok(barriers.length > 0);
        const [, writer, barrier] = barriers.at(-1)!.split(' ');
        await listener.query('select pg_notify($1, $2)', [channel, `a slow ${writer}:${barrier}`]);
        await write;
        assert.equal(
          ((await (await get('')).json()) as { data: Array<{ title: string }> }).data[0]!.title,
          'Held',
        );
      } finally {
        await listener.end();
      }
    });
  });
}
