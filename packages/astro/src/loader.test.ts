import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { type BlockType, defaultComponents, html, type SafeHtml } from '@folio/client';
import type { LoaderContext } from 'astro/loaders';
import { createTestApp, newArticle, type TestApp } from '../../server/src/test/test-app.ts';
import { type FolioLoaderOptions, folioLoader } from './loader.ts';
import { type FolioArticleData, folioArticleSchema } from './schema.ts';

const SITE = 'https://www.example.com';
const DAY = 86_400_000;

interface StoredEntry {
  id: string;
  data: FolioArticleData;
  rendered?: { html: string };
  digest?: string | number;
}

/** The parts of Astro's loader context the loader uses, over plain maps. */
function fakeContext(entries = new Map<string, StoredEntry>(), meta = new Map<string, string>()) {
  const logs: string[] = [];
  const context = {
    collection: 'articles',
    store: {
      get: (id: string) => entries.get(id),
      set: (entry: StoredEntry) => entries.set(entry.id, entry).has(entry.id),
      delete: (id: string) => void entries.delete(id),
      clear: () => entries.clear(),
      has: (id: string) => entries.has(id),
      keys: () => [...entries.keys()],
      values: () => [...entries.values()],
      entries: () => [...entries.entries()],
    },
    meta: {
      get: (key: string) => meta.get(key),
      set: (key: string, value: string) => void meta.set(key, value),
      has: (key: string) => meta.has(key),
      delete: (key: string) => void meta.delete(key),
    },
    logger: { info: (message: string) => logs.push(message) },
    config: { site: SITE },
    parseData: ({ data }: { data: unknown }) => folioArticleSchema.parseAsync(data),
    generateDigest: (data: unknown) => JSON.stringify(data),
  };
  return { context: context as unknown as LoaderContext, entries, meta, logs };
}

describe('folioLoader against a live Folio', () => {
  let t: TestApp;
  let options: FolioLoaderOptions;
  let projectId: string;
  let requests: string[];

  beforeEach(async () => {
    t = await createTestApp('sqlite', { changesRetentionMs: 30 * DAY });
    projectId = (await t.createProject({ websiteUrl: SITE, articlesPath: '/blog' })).id;
    requests = [];
    options = {
      baseUrl: 'http://folio.test',
      projectId,
      contentKey: await t.createKey(projectId),
      siteName: 'Test blog',
      fetch: async (input, init) => {
        const url = new URL(String(input));
        requests.push(`${url.pathname.replace(`/api/v1/projects/${projectId}`, '')}${url.search}`);
        return t.fetch(url.pathname + url.search, init);
      },
    };
  });
  afterEach(() => t.close());

  const put = (id: string, fields: Parameters<typeof newArticle>[0] = {}) =>
    t.putArticle(projectId, id, newArticle({ published: true, ...fields }));
  const admin = (method: 'POST' | 'DELETE', path: string) =>
    t.admin(method, `/admin/v1/projects/${projectId}/articles/${path}`);
  const slugs = (entries: Map<string, StoredEntry>) => [...entries.values()].map((e) => e.data.slug).sort();

  test('a first load stores every published article with its HTML, head tags and dates', async () => {
    await put('a', { slug: 'first', title: 'First <post>' });
    await put('b', { slug: 'second' });
    await t.putArticle(projectId, 'draft', newArticle({ slug: 'draft' }));
    const { context, entries, meta, logs } = fakeContext();
    await folioLoader(options).load(context);

    assert.deepEqual(slugs(entries), ['first', 'second']);
    const first = entries.get('a')!;
    assert.equal(first.data.title, 'First <post>');
    assert.ok(first.data.publishedAt instanceof Date);
    assert.match(first.rendered!.html, /^<p>The body of article \d+\.<\/p>$/);
    assert.match(first.data.head, /<title>First &lt;post&gt;<\/title>/);
    assert.match(first.data.head, /<link rel="canonical" href="https:\/\/www\.example\.com\/blog\/first">/);
    assert.match(first.data.head, /<meta property="og:site_name" content="Test blog">/);
    assert.ok(meta.get('cursor'));
    assert.deepEqual(requests, ['/content/changes']);
    assert.deepEqual(logs, ['2 updated, 0 removed (full sync: first sync)']);
  });

  test('the next load asks only for what changed and applies upserts, renames and deletes', async () => {
    await put('a', { slug: 'kept' });
    await put('b', { slug: 'old-name' });
    await put('c', { slug: 'deleted' });
    await put('d', { slug: 'unpublished' });
    const { context, entries, meta, logs } = fakeContext();
    await folioLoader(options).load(context);
    const cursor = meta.get('cursor')!;

    await put('e', { slug: 'new' });
    await put('b', { slug: 'new-name' });
    await admin('DELETE', 'c');
    await admin('POST', 'd/unpublish');
    requests.length = 0;
    await folioLoader(options).load(context);

    assert.deepEqual(slugs(entries), ['kept', 'new', 'new-name']);
    assert.match(entries.get('b')!.data.head, /href="https:\/\/www\.example\.com\/blog\/new-name"/);
    assert.deepEqual(requests, [`/content/changes?since=${encodeURIComponent(cursor)}`]);
    assert.equal(logs.at(-1), '2 updated, 2 removed');
  });

  test('an expired cursor (410) empties the collection and reloads the published set', async () => {
    await put('a', { slug: 'a' });
    const { context, entries, logs } = fakeContext();
    await folioLoader(options).load(context);
    // An entry the feed no longer knows of: only a full reload can tell it is gone.
    entries.set('ghost', { ...entries.get('a')!, id: 'ghost' });
    t.clock.advance(31 * DAY);
    await folioLoader(options).load(context);

    assert.deepEqual([...entries.keys()], ['a']);
    assert.equal(requests.length, 3, 'the first load, the 410, the full sync');
    assert.equal(logs.at(-1), '1 updated, 0 removed (full sync: cursor expired)');
  });

  test('a cursor of another project is not used: the collection is rebuilt from the other', async () => {
    await put('a', { slug: 'a' });
    const { context, entries, meta } = fakeContext();
    await folioLoader(options).load(context);
    const other = (await t.createProject({ name: 'Other', articlesPath: '/blog' })).id;
    await t.putArticle(other, 'z', newArticle({ slug: 'z', published: true }));
    await folioLoader({ ...options, projectId: other, contentKey: await t.createKey(other) }).load(context);

    assert.deepEqual(slugs(entries), ['z']);
    assert.ok(!meta.get('source')!.includes(projectId));
    assert.ok(![...meta.values()].some((value) => value.includes('folio_ck_')), 'the key is never stored');
  });

  test('other components or another site name make every entry again, not only the changed ones', async () => {
    await put('a', { slug: 'a' });
    await put('b', { slug: 'b' });
    const { context, entries, logs } = fakeContext();
    const heading = (version: string) => ({
      components: { paragraph: () => `<p class="${version}">paragraph</p>` },
    });
    await folioLoader({ ...options, render: heading('v1') }).load(context);
    assert.ok(entries.get('b')!.rendered!.html.includes('class="v1"'));

    // Nothing changed in Folio: the same options ask only for changes, and make nothing again.
    await folioLoader({ ...options, render: heading('v1') }).load(context);
    assert.equal(logs.at(-1), '0 updated, 0 removed');

    await folioLoader({ ...options, render: heading('v2') }).load(context);
    assert.equal(logs.at(-1), '2 updated, 0 removed (full sync: rendering changed)');
    for (const id of ['a', 'b']) assert.ok(entries.get(id)!.rendered!.html.includes('class="v2"'), id);

    await folioLoader({ ...options, render: heading('v2'), siteName: 'Renamed blog' }).load(context);
    assert.equal(logs.at(-1), '2 updated, 0 removed (full sync: rendering changed)');
    assert.match(entries.get('a')!.data.head, /og:site_name" content="Renamed blog"/);
  });

  test('a renderer that draws any block type differently makes every entry again', async () => {
    await put('a', { slug: 'a' });
    const { context, entries, logs } = fakeContext();
    await folioLoader(options).load(context);
    // As an upgrade of @folio/client would: the default markup of one block type changes.
    for (const type of Object.keys(defaultComponents) as BlockType[]) {
      const before = defaultComponents[type];
      (defaultComponents as Record<BlockType, unknown>)[type] = (...args: Parameters<typeof before>) =>
        html`${(before as (...a: typeof args) => SafeHtml)(...args)}<!-- upgraded -->`;
      try {
        await folioLoader(options).load(context);
        assert.equal(logs.at(-1), '1 updated, 0 removed (full sync: rendering changed)', type);
      } finally {
        (defaultComponents as Record<BlockType, unknown>)[type] = before;
      }
      await folioLoader(options).load(context);
    }
    assert.equal(entries.size, 1);
  });

  test('a cursor the server refuses (400) falls back to a full sync', async () => {
    await put('a', { slug: 'a' });
    const { context, entries, meta } = fakeContext();
    await folioLoader(options).load(context);
    meta.set('cursor', 'not-a-cursor');
    entries.set('ghost', { ...entries.get('a')!, id: 'ghost' });
    await folioLoader(options).load(context);
    assert.deepEqual([...entries.keys()], ['a']);
  });

  test('a 429 asking to wait 30 s is waited out, as a build would rather wait than fail', async () => {
    await put('a', { slug: 'a' });
    const waits: number[] = [];
    let limited = 2;
    const limitedFetch: typeof fetch = async (input, init) => {
      if (limited-- > 0) {
        const body = { error: { code: 'rate_limited', message: 'Too many requests.' } };
        return Response.json(body, { status: 429, headers: { 'retry-after': '30' } });
      }
      return options.fetch!(input, init);
    };
    const sleep = async (ms: number) => void waits.push(ms);
    const { context, entries } = fakeContext();
    await folioLoader({ ...options, fetch: limitedFetch, client: { sleep } }).load(context);
    assert.deepEqual([...entries.keys()], ['a']);
    assert.deepEqual(waits, [30_000, 30_000]);

    // The client's settings are the developer's to set: without retries the 429 fails the build.
    limited = 1;
    await assert.rejects(
      folioLoader({ ...options, fetch: limitedFetch, client: { sleep, retries: 0 } }).load(
        fakeContext().context,
      ),
      (error: Error & { status?: number }) => error.status === 429,
    );
  });

  test('a Folio restarting for 5 s (connections refused) is waited for, not a failed build', async () => {
    await put('a', { slug: 'a' });
    // The build's clock: each wait the client makes moves it on.
    let now = 0;
    const sleep = async (ms: number) => {
      now += ms;
    };
    const restarting: typeof fetch = async (input, init) => {
      if (now < 5_000) throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') });
      return options.fetch!(input, init);
    };
    const { context, entries } = fakeContext();
    await folioLoader({ ...options, fetch: restarting, client: { sleep } }).load(context);
    assert.deepEqual([...entries.keys()], ['a']);
  });

  test('an empty key, a preview key or a missing site fails with what to set', async () => {
    const { context } = fakeContext();
    await assert.rejects(folioLoader({ ...options, contentKey: '' }).load(context), /FOLIO_CONTENT_KEY/);
    await assert.rejects(
      folioLoader({ ...options, contentKey: 'folio_pk_abc' }).load(context),
      /a preview key \(folio_pk_…\); the loader builds the published site from a content key/,
    );
    context.config = { ...context.config, site: undefined };
    await assert.rejects(folioLoader(options).load(context), /set `site` in astro\.config/);
    await folioLoader({ ...options, origin: 'https://other.example' }).load(context);
  });
});
