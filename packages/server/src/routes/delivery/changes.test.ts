import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { ArticleListItem, Change } from '@folio/schema';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { createMetrics } from '../../http/metrics.ts';
import { cursorBucketMs, pruneChangeHistory } from '../../services/changes.ts';
import { DIALECTS } from '../../test/databases.ts';
import { buildSecondApp, createTestApp, newArticle, type TestApp } from '../../test/test-app.ts';

const DAY = 86_400_000;
const RETENTION = 30 * DAY;

type Replica = Map<string, ArticleListItem>;

interface Feed {
  t: TestApp;
  projectId: string;
  key: string;
}

const changesUrl = (projectId: string, query = '') => `/api/v1/projects/${projectId}/content/changes${query}`;

/** One answer of the feed, which must be a 200. */
async function readChanges(feed: Feed, query: Record<string, string | number>) {
  const search = new URLSearchParams(Object.entries(query).map(([name, value]) => [name, String(value)]));
  const response = await feed.t.deliver(feed.key, changesUrl(feed.projectId, `?${search}`));
  assert.equal(response.statusCode, 200, response.body);
  return response.json().data as { changes: Change[]; cursor: string; hasMore: boolean };
}

/** Follows `hasMore` to the end, applying every change; returns the last cursor. */
async function sync(feed: Feed, replica: Replica, cursor?: string, limit = 100): Promise<string> {
  for (;;) {
    const page = await readChanges(feed, { ...(cursor ? { since: cursor } : {}), limit });
    const ids = page.changes.map((change) => (change.type === 'upsert' ? change.article.id : change.id));
    assert.equal(new Set(ids).size, ids.length, 'at most one change per article in an answer');
    for (const change of page.changes) {
      if (change.type === 'upsert') replica.set(change.article.id, change.article);
      else replica.delete(change.id);
    }
    cursor = page.cursor;
    if (!page.hasMore) return cursor;
  }
}

/** Reads the feed from `since` on another server process, as a replica would. */
const askOn = (app: FastifyInstance, feed: Feed) => (since: string) =>
  app.inject({
    method: 'GET',
    url: changesUrl(feed.projectId, `?since=${since}`),
    headers: { authorization: `Bearer ${feed.key}` },
  });

/** The published set as the list endpoint serves it, by id. */
async function publishedSet(feed: Feed): Promise<Replica> {
  const all: Replica = new Map();
  for (let page = 1; ; page++) {
    const response = await feed.t.deliver(
      feed.key,
      `/api/v1/projects/${feed.projectId}/content?page=${page}&limit=100`,
    );
    const body = response.json();
    for (const item of body.data as ArticleListItem[]) all.set(item.id, item);
    if (!body.pagination.hasNext) return all;
  }
}

async function assertReplicaEqual(feed: Feed, replica: Replica, message?: string): Promise<void> {
  const expected = await publishedSet(feed);
  const sorted = (map: Replica) => [...map.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  assert.deepEqual(sorted(replica), sorted(expected), message);
}

for (const dialect of DIALECTS) {
  describe(`changes feed [${dialect}]`, () => {
    let t: TestApp;
    let feed: Feed;
    beforeEach(async () => {
      t = await createTestApp(dialect);
      const projectId = (await t.createProject({ articlesPath: '/blog' })).id;
      feed = { t, projectId, key: await t.createKey(projectId) };
    });
    afterEach(() => t.close());

    const put = (id: string, fields: Parameters<typeof newArticle>[0] = {}) =>
      t.putArticle(feed.projectId, id, newArticle(fields));
    const admin = (method: 'POST' | 'DELETE', path: string) =>
      t.admin(method, `/admin/v1/projects/${feed.projectId}/articles/${path}`);

    test('without since: the published set as upserts, page by page, as the list serves it', async () => {
      for (let i = 0; i < 5; i++) await put(`a${i}`, { published: true });
      await put('draft', { published: false });
      const first = await readChanges(feed, { limit: 2 });
      assert.equal(first.changes.length, 2);
      assert.equal(first.hasMore, true);
      assert.ok(first.changes.every((change) => change.type === 'upsert'));
      const replica: Replica = new Map();
      await sync(feed, replica, undefined, 2);
      assert.deepEqual([...replica.keys()].sort(), ['a0', 'a1', 'a2', 'a3', 'a4']);
      await assertReplicaEqual(feed, replica);
    });

    test('with since: the latest state of each changed article, in commit order', async () => {
      for (const id of ['a', 'b', 'c', 'd']) await put(id, { slug: `${id}-slug`, published: true });
      const replica: Replica = new Map();
      const cursor = await sync(feed, replica);

      await put('b', { slug: 'b-renamed', published: true });
      await put('a', { slug: 'a-slug', title: 'A, edited', published: true });
      await admin('POST', 'c/unpublish');
      await admin('DELETE', 'd');
      await put('b', { slug: 'b-renamed-again', published: true });
      await put('e', { slug: 'e-slug', published: false });

      const page = await readChanges(feed, { since: cursor });
      assert.equal(page.hasMore, false);
      const summary = page.changes.map((change) =>
        change.type === 'upsert'
          ? `upsert ${change.article.id} ${change.article.slug}`
          : `delete ${change.id} ${change.slug}`,
      );
      assert.deepEqual(summary, [
        'upsert a a-slug',
        'delete c c-slug',
        'delete d d-slug',
        'upsert b b-renamed-again',
      ]);
      const a = page.changes[0] as Extract<Change, { type: 'upsert' }>;
      assert.equal(a.article.title, 'A, edited');
      assert.equal(a.article.seo.canonicalPath, '/blog/a-slug');
    });

    test('nothing changed: an empty answer that hands back a cursor to keep', async () => {
      await put('a', { published: true });
      const cursor = await sync(feed, new Map());
      const page = await readChanges(feed, { since: cursor });
      assert.deepEqual(page.changes, []);
      assert.equal(page.hasMore, false);
      assert.equal(page.cursor, cursor, 'the same cursor: polling it is a cache hit');
      // A replace that changes nothing served is no change.
      const same = { slug: 'unchanged', title: 'Same', blocks: [], published: true };
      await t.putArticle(feed.projectId, 'a', same);
      const next = await sync(feed, new Map(), cursor);
      await t.putArticle(feed.projectId, 'a', same);
      assert.deepEqual((await readChanges(feed, { since: next })).changes, []);
    });

    test('a delete names the slug the article was last served under', async () => {
      await put('a', { slug: 'served-slug', published: true });
      const cursor = await sync(feed, new Map());
      await admin('POST', 'a/unpublish');
      await put('a', { slug: 'renamed-while-unpublished' });
      await admin('DELETE', 'a');
      assert.deepEqual((await readChanges(feed, { since: cursor })).changes, [
        { type: 'delete', id: 'a', slug: 'served-slug' },
      ]);
    });

    test('renamed and unpublished in one write: the delete names the slug that was served', async () => {
      await put('a', { slug: 'served-a', published: true });
      await put('b', { slug: 'served-b', published: true });
      const cursor = await sync(feed, new Map());
      const now = new Date(t.clock.now()).toISOString();
      // A live PUT whose unpublishAt is due: the new slug is never served.
      await put('a', { slug: 'never-served-a', unpublishAt: now });
      // A draft that renames, both times due: published and unpublished in the same write.
      const path = `/admin/v1/projects/${feed.projectId}/articles/b/draft`;
      const draft = await t.admin('PUT', path, {
        ...newArticle({ slug: 'never-served-b' }),
        publishAt: now,
        unpublishAt: now,
      });
      assert.equal(draft.statusCode, 200, draft.body);
      assert.deepEqual((await readChanges(feed, { since: cursor })).changes, [
        { type: 'delete', id: 'a', slug: 'served-a' },
        { type: 'delete', id: 'b', slug: 'served-b' },
      ]);
      // Deleted afterwards, its tombstone keeps that slug.
      await admin('DELETE', 'a');
      assert.deepEqual((await readChanges(feed, { since: cursor })).changes, [
        { type: 'delete', id: 'a', slug: 'served-a' },
        { type: 'delete', id: 'b', slug: 'served-b' },
      ]);
    });

    test('unpublish then republish, delete then create again: one change each, the latest', async () => {
      await put('a', { slug: 'a', published: true });
      await put('b', { slug: 'b', published: true });
      const replica: Replica = new Map();
      const cursor = await sync(feed, replica);
      await admin('POST', 'a/unpublish');
      await admin('POST', 'a/publish');
      await admin('DELETE', 'b');
      await put('b', { slug: 'b-again', published: false });
      let page = await readChanges(feed, { since: cursor });
      assert.deepEqual(
        page.changes.map((change) => change.type),
        ['upsert', 'delete'],
      );
      await admin('POST', 'b/publish');
      page = await readChanges(feed, { since: cursor });
      assert.deepEqual(
        page.changes.map((change) => (change.type === 'upsert' ? change.article.slug : change.slug)),
        ['a', 'b-again'],
      );
      await sync(feed, replica, cursor);
      await assertReplicaEqual(feed, replica);
    });

    test('a first sync leaves out deletes of what was gone before it began', async () => {
      await put('gone', { published: true });
      await admin('DELETE', 'gone');
      await put('hidden', { published: true });
      await admin('POST', 'hidden/unpublish');
      await put('kept', { published: true });
      const first = await readChanges(feed, {});
      assert.deepEqual(
        first.changes.map((change) => change.type),
        ['upsert'],
      );
      // A delete during a first sync still reaches it.
      await put('late', { published: true });
      const replica: Replica = new Map();
      const page = await readChanges(feed, { limit: 1 });
      replica.set('kept', (page.changes[0] as Extract<Change, { type: 'upsert' }>).article);
      await admin('DELETE', 'kept');
      await sync(feed, replica, page.cursor, 1);
      await assertReplicaEqual(feed, replica);
    });

    test('a change to the site settings upserts every published article with its new links', async () => {
      await put('a', { slug: 'a', published: true });
      await put('b', { slug: 'b', published: false });
      const replica: Replica = new Map();
      const cursor = await sync(feed, replica);
      const patched = await t.admin('PATCH', `/admin/v1/projects/${feed.projectId}`, {
        articlesPath: '/news',
      });
      assert.equal(patched.statusCode, 200);
      const page = await readChanges(feed, { since: cursor });
      assert.equal(page.changes.length, 1);
      await sync(feed, replica, cursor);
      assert.equal(replica.get('a')!.seo.canonicalPath, '/news/a');
      await assertReplicaEqual(feed, replica);
    });

    test('limit: whole numbers from 1, larger capped to 100; anything else is 400', async () => {
      for (let i = 0; i < 102; i++) await put(`a${String(i).padStart(3, '0')}`, { published: true });
      assert.equal((await readChanges(feed, {})).changes.length, 100);
      assert.equal((await readChanges(feed, { limit: 500 })).changes.length, 100);
      assert.equal((await readChanges(feed, { limit: 1 })).changes.length, 1);
      for (const limit of ['abc', '0', '-1', '1.5', '']) {
        const response = await t.deliver(feed.key, changesUrl(feed.projectId, `?limit=${limit}`));
        assert.equal(response.statusCode, 400, limit);
        assert.equal(response.json().error.code, 'invalid_query', limit);
      }
    });

    test('a malformed since is 400 invalid_query', async () => {
      const cursor = await sync(feed, new Map());
      const forged = Buffer.from('c1.1.0.x.1').toString('base64url');
      for (const since of ['garbage', '!!', forged, `${cursor}x`, '']) {
        const response = await t.deliver(feed.key, changesUrl(feed.projectId, `?since=${since}`));
        assert.equal(response.statusCode, 400, since);
        assert.equal(response.json().error.code, 'invalid_query', since);
      }
    });

    test('a key of another project is 403', async () => {
      const other = await t.createProject({ name: 'Other' });
      const response = await t.deliver(feed.key, changesUrl(other.id));
      assert.equal(response.statusCode, 403);
      assert.equal(response.json().error.code, 'forbidden');
    });

    test('a cursor older than the retention is 410 cursor_expired, even if nothing was pruned', async () => {
      await put('a', { published: true });
      const cursor = await sync(feed, new Map());
      // Asked for once, so the answer is cached: the cache must not hide the expiry.
      await readChanges(feed, { since: cursor });
      t.clock.advance(RETENTION - DAY);
      assert.equal(
        (await t.deliver(feed.key, changesUrl(feed.projectId, `?since=${cursor}`))).statusCode,
        200,
      );
      t.clock.advance(DAY + 1);
      const response = await t.deliver(feed.key, changesUrl(feed.projectId, `?since=${cursor}`));
      assert.equal(response.statusCode, 410);
      assert.equal(response.json().error.code, 'cursor_expired');
      assert.equal(response.json().success, false);
      // A cursor from a sync made now is good again.
      await sync(feed, new Map());
    });

    test('a cursor is good until the retention is over, to within a thousandth of it', async () => {
      await put('a', { published: true });
      // Issued at the end of a rounding interval, where rounding makes it look oldest.
      const bucketMs = cursorBucketMs(RETENTION);
      assert.ok(bucketMs <= RETENTION / 1000);
      t.clock.advance(bucketMs - (t.clock.now() % bucketMs) - 1);
      const cursor = await sync(feed, new Map());
      const ask = () => t.deliver(feed.key, changesUrl(feed.projectId, `?since=${cursor}`));
      t.clock.advance(RETENTION - 2 * bucketMs);
      assert.equal((await ask()).statusCode, 200);
      t.clock.advance(3 * bucketMs);
      assert.equal((await ask()).statusCode, 410);
    });

    test('cursors of earlier versions are 410: they cannot tell whether changes were lost since', async () => {
      await put('a', { published: true });
      const cursor = await sync(feed, new Map());
      // Today's `c3.<seq>.<skip>.<issued>.<bucket>.<history>.<check>`, written as versions 1
      // and 2 were: without the history, and with the check each version had.
      const fields = Buffer.from(cursor, 'base64url').toString('latin1').split('.').slice(1, 5);
      const v1 = ['c1', ...fields].join('.');
      const v2 = ['c2', ...fields].join('.');
      const check = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 6);
      const older = [v1, `${v1}.${check(v1)}`, `${v2}.${check(`${feed.projectId}\n${v2}`)}`];
      for (const legacy of older) {
        const since = Buffer.from(legacy).toString('base64url');
        const response = await t.deliver(feed.key, changesUrl(feed.projectId, `?since=${since}`));
        assert.equal(response.statusCode, 410, legacy);
        assert.equal(response.json().error.code, 'cursor_expired');
        assert.match(response.json().error.message, /earlier version of Folio/);
      }
      // Cut or retyped, one is still no cursor at all.
      const cut = Buffer.from(`${v2}.${check(v2)}`).toString('base64url');
      assert.equal((await t.deliver(feed.key, changesUrl(feed.projectId, `?since=${cut}`))).statusCode, 400);
    });

    test('after a restore, a cursor from the lost history is 410, and a sync without it mends the replica', async () => {
      await put('a', { published: true });
      const replica: Replica = new Map();
      const cursor = await sync(feed, replica);
      // What a restore leaves: a history of its own (a backup copy's, or a PostgreSQL database
      // found in another place), read by the server that starts on it.
      await t.db
        .updateTable('settings')
        .set({ value: 'restored ' })
        .where('key', '=', 'change_history')
        .execute();
      const restarted = await buildSecondApp(t);
      try {
        const ask = askOn(restarted, feed);
        const response = await ask(cursor);
        assert.equal(response.statusCode, 410, response.body);
        assert.equal(response.json().error.code, 'cursor_expired');
        assert.match(response.json().error.message, /restored from a backup/);
        // A new sync's cursor is of the new history, and taken.
        const fresh = await restarted.inject({
          method: 'GET',
          url: changesUrl(feed.projectId),
          headers: { authorization: `Bearer ${feed.key}` },
        });
        assert.equal((await ask(fresh.json().data.cursor)).statusCode, 200);
      } finally {
        await restarted.close();
      }
    });

    test('a cursor past the last change this database has is 410: a restore that kept its history', async () => {
      await put('a', { published: true });
      const replica: Replica = new Map();
      const before = await sync(feed, replica);
      await put('b', { published: true });
      const cursor = await sync(feed, replica, before);
      // A file-system snapshot, a point-in-time recovery, a copy of a stopped SQLite file: the
      // database as it was before 'b', its history setting and all.
      const { change_seq: restoredSeq } = await t.db
        .selectFrom('articles')
        .select('change_seq')
        .where('project_id', '=', feed.projectId)
        .where('id', '=', 'a')
        .executeTakeFirstOrThrow();
      await t.db
        .deleteFrom('articles')
        .where('project_id', '=', feed.projectId)
        .where('id', '=', 'b')
        .execute();
      await t.db
        .updateTable('projects')
        .set({ change_seq: Number(restoredSeq) })
        .where('id', '=', feed.projectId)
        .execute();
      const restarted = await buildSecondApp(t);
      try {
        const ask = askOn(restarted, feed);
        const response = await ask(cursor);
        assert.equal(response.statusCode, 410, response.body);
        assert.equal(response.json().error.code, 'cursor_expired');
        assert.match(response.json().error.message, /changes this database does not have/);
        // A cursor the restored database does reach is still a position in it.
        assert.equal((await ask(before)).statusCode, 200);
      } finally {
        await restarted.close();
      }
    });

    test("another project's cursor is 400, not a position in this project's history", async () => {
      await put('a', { published: true });
      const cursor = await sync(feed, new Map());
      const other = (await t.createProject({ name: 'Other' })).id;
      const otherFeed = { t, projectId: other, key: await t.createKey(other) };
      const response = await t.deliver(otherFeed.key, changesUrl(other, `?since=${cursor}`));
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(response.json().error.code, 'invalid_query');
      assert.equal(
        (await readChanges(feed, { since: cursor })).changes.length,
        0,
        'its own project takes it',
      );
    });

    test('a cursor handed back unchanged ages only within one polling bucket', async () => {
      await put('a', { published: true });
      let cursor = await sync(feed, new Map());
      // Polled every ten days for 90 days with nothing changed: never expires.
      for (let day = 0; day < 90; day += 10) {
        t.clock.advance(10 * DAY);
        cursor = (await readChanges(feed, { since: cursor })).cursor;
      }
    });

    test('history older than the retention is pruned; newer is kept', async () => {
      await put('old', { published: true });
      await put('new', { published: true });
      await admin('DELETE', 'old');
      t.clock.advance(RETENTION - DAY);
      await admin('DELETE', 'new');
      t.clock.advance(DAY + 1);
      const pruned = await pruneChangeHistory({ db: t.db, now: t.clock.now }, RETENTION);
      // One tombstone per perspective: the content keys' feed and the preview keys'.
      assert.equal(pruned, 2);
      for (const table of ['article_tombstones', 'preview_tombstones'] as const) {
        const left = await t.db.selectFrom(table).select(['id', 'slug']).execute();
        assert.deepEqual(
          left.map((row) => row.id),
          ['new'],
          table,
        );
      }
    });

    test('an incremental sync with nothing changed is served from the response cache', async () => {
      await put('a', { published: true });
      const cursor = await sync(feed, new Map());
      const url = changesUrl(feed.projectId, `?since=${cursor}`);
      const first = await t.deliver(feed.key, url);
      const again = await t.deliver(feed.key, url);
      assert.equal(again.headers.etag, first.headers.etag);
      const cached = (t.app as unknown as { responseCacheUse: () => { entries: number } }).responseCacheUse();
      assert.ok(cached.entries >= 1);
      // A change is seen at once: the write moved the content version on.
      await put('b', { published: true });
      const page = (await t.deliver(feed.key, url)).json().data;
      assert.equal(page.changes.length, 1);
    });

    /** An app of its own, with metrics, and a replica of a project holding one published article. */
    async function withTimedReplica(
      work: (app: {
        timed: TestApp;
        replica: Feed;
        metrics: ReturnType<typeof createMetrics>;
      }) => Promise<void>,
    ): Promise<void> {
      const metrics = createMetrics();
      const timed = await createTestApp(dialect, { metrics });
      try {
        const projectId = (await timed.createProject()).id;
        const replica = { t: timed, projectId, key: await timed.createKey(projectId) };
        await timed.putArticle(projectId, 'a', newArticle({ published: true }));
        await work({ timed, replica, metrics });
      } finally {
        await timed.close();
      }
    }

    test('a first sync asked again within its bucket is answered from the cache', async () => {
      await withTimedReplica(async ({ timed, replica, metrics }) => {
        const first = await readChanges(replica, { limit: 4 });
        const hits = metrics.totals().cacheHits;
        assert.deepEqual(await readChanges(replica, { limit: 4 }), first);
        assert.equal(metrics.totals().cacheHits - hits, 1, 'the repeated read was a cache hit');
        // The next bucket's first sync hands on a cursor of that bucket: built anew.
        timed.clock.advance(cursorBucketMs(RETENTION));
        assert.notEqual((await readChanges(replica, { limit: 4 })).cursor, first.cursor);
      });
    });

    test('a cursor from an earlier polling bucket is answered from the cache until the bucket ends', async () => {
      await withTimedReplica(async ({ timed, replica, metrics }) => {
        const cursor = await sync(replica, new Map());
        const bucketMs = cursorBucketMs(RETENTION);
        // The replica polls again hours later, with the cursor its last sync ended on.
        timed.clock.advance(2 * bucketMs);
        const first = await readChanges(replica, { since: cursor });
        assert.notEqual(first.cursor, cursor, 'the cursor handed on carries the current bucket');
        const hits = metrics.totals().cacheHits;
        const again = await readChanges(replica, { since: cursor });
        assert.equal(again.cursor, first.cursor);
        assert.equal(metrics.totals().cacheHits - hits, 1, 'the second poll was answered from the cache');
        // In the next bucket the answer differs: the kept one is past its time and not served.
        timed.clock.advance(bucketMs);
        const later = await readChanges(replica, { since: cursor });
        assert.notEqual(later.cursor, first.cursor);
        assert.equal((await readChanges(replica, { since: later.cursor })).cursor, later.cursor);
      });
    });

    test('the fast path answers a repeated incremental sync over a socket', async () => {
      // The fast path reads the real clock: start the test's clock there too.
      const live = await createTestApp(dialect, { clockStart: Date.now() });
      try {
        const projectId = (await live.createProject()).id;
        const key = await live.createKey(projectId);
        await live.putArticle(projectId, 'a', newArticle({ published: true }));
        const cursor = await sync({ t: live, projectId, key }, new Map());
        const get = () =>
          live.fetch(changesUrl(projectId, `?since=${cursor}`), {
            headers: { authorization: `Bearer ${key}`, 'accept-encoding': 'identity' },
          });
        assert.equal((await get()).status, 200);
        const hits = (live.app as unknown as { fastPathHits: () => number }).fastPathHits;
        const before = hits();
        const again = await get();
        assert.equal(again.status, 200);
        assert.equal((await again.json()).data.cursor, cursor);
        assert.equal(hits() - before, 1);
        // Polled in a later bucket, the cursor's answer is kept, and answered ready, until that
        // bucket ends. Placed 30 s before its end: the key's check, kept a minute, outlives it.
        const bucketMs = cursorBucketMs(RETENTION);
        live.clock.advance(2 * bucketMs - (live.clock.now() % bucketMs) - 30_000);
        // The key is checked again (on SQLite its touch moves the change token once more).
        for (let i = 0; i < 2; i++) await (await get()).arrayBuffer();
        const moved = (await (await get()).json()).data.cursor;
        assert.notEqual(moved, cursor);
        const fastBefore = hits();
        assert.equal((await (await get()).json()).data.cursor, moved);
        assert.equal(hits() - fastBefore, 1, 'answered ready on the fast path');
        live.clock.advance(31_000);
        const past = hits();
        assert.notEqual((await (await get()).json()).data.cursor, moved);
        assert.equal(hits() - past, 0, 'past its time, not served ready');
      } finally {
        await live.close();
      }
    });

    test('random edits interleaved with syncs always leave the replica equal to the published set', async () => {
      const op = fc.oneof(
        fc.record({
          kind: fc.constant('put' as const),
          id: fc.integer({ min: 0, max: 4 }),
          slug: fc.integer({ min: 0, max: 5 }),
          title: fc.constantFrom('One', 'Two'),
          published: fc.option(fc.boolean(), { nil: undefined }),
        }),
        fc.record({
          kind: fc.constantFrom('publish' as const, 'unpublish' as const, 'delete' as const),
          id: fc.integer({ min: 0, max: 4 }),
        }),
        fc.record({ kind: fc.constant('sync' as const), limit: fc.integer({ min: 1, max: 3 }) }),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(op, { maxLength: 30 }), async (ops) => {
          const projectId = (await t.createProject({ name: 'Property' })).id;
          const run: Feed = { t, projectId, key: await t.createKey(projectId) };
          const replica: Replica = new Map();
          let cursor: string | undefined;
          for (const step of ops) {
            const path = `/admin/v1/projects/${projectId}/articles/a${'id' in step ? step.id : ''}`;
            if (step.kind === 'put') {
              const body = {
                slug: `s${step.slug}`,
                title: step.title,
                blocks: [],
                published: step.published,
              };
              const response = await t.admin('PUT', path, body);
              assert.ok([200, 201, 409].includes(response.statusCode), response.body);
            } else if (step.kind === 'delete') {
              await t.admin('DELETE', path);
            } else if (step.kind === 'sync') {
              cursor = await sync(run, replica, cursor, step.limit);
            } else {
              await t.admin('POST', `${path}/${step.kind}`);
            }
            t.clock.advance(1000);
          }
          await sync(run, replica, cursor, 2);
          await assertReplicaEqual(run, replica, JSON.stringify(ops));
        }),
        { numRuns: 25 },
      );
    });

    test('concurrent writers while a reader keeps syncing: the replica ends equal', async () => {
      const replica: Replica = new Map();
      let cursor: string | undefined;
      let writing = true;
      const reader = (async () => {
        while (writing) {
          cursor = await sync(feed, replica, cursor, 3);
          // Let the writers' I/O in: a cached answer resolves without waiting on any.
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      for (let round = 0; round < 6; round++) {
        await Promise.all(
          Array.from({ length: 8 }, async (_, i) => {
            const id = `a${i}`;
            const slug = `s${i}-${round % 2}`;
            const response = await t.admin('PUT', `/admin/v1/projects/${feed.projectId}/articles/${id}`, {
              slug,
              title: `Round ${round}`,
              blocks: [],
              published: (i + round) % 3 !== 0,
            });
            assert.ok([200, 201].includes(response.statusCode), response.body);
            if ((i + round) % 5 === 0)
              await t.admin('DELETE', `/admin/v1/projects/${feed.projectId}/articles/${id}`);
          }),
        );
      }
      writing = false;
      await reader;
      await sync(feed, replica, cursor, 3);
      await assertReplicaEqual(feed, replica);
    });
  });
}
