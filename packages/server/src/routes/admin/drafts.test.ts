import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { assertError, assertInvalidBody, countRows, listEvents } from '../../test/assertions.ts';
import { DIALECTS } from '../../test/databases.ts';
import { createTestApp, newArticle, paragraph, START_TIME, type TestApp } from '../../test/test-app.ts';

const iso = (ms: number) => new Date(ms).toISOString();

for (const dialect of DIALECTS) {
  describe(`management API: drafts [${dialect}]`, () => {
    let t: TestApp;
    let projectId: string;
    let key: string;
    beforeEach(async () => {
      t = await createTestApp(dialect);
      projectId = (await t.createProject({ websiteUrl: 'https://www.example.com' })).id;
      key = await t.createKey(projectId);
    });
    afterEach(() => t.close());

    const one = (id: string) => `/admin/v1/projects/${projectId}/articles/${id}`;
    const put = (id: string, body: unknown) => t.admin('PUT', one(id), body);
    const putDraft = (id: string, body: unknown) => t.admin('PUT', `${one(id)}/draft`, body);
    const get = async (id: string) => (await t.admin('GET', one(id))).json().data;
    const bySlug = (slug: string) => t.deliver(key, `/api/v1/projects/${projectId}/content/by-slug/${slug}`);
    const list = async () =>
      (await t.deliver(key, `/api/v1/projects/${projectId}/content`)).json().data as { id: string }[];

    test('a draft of a new article creates it unpublished, holding the draft (201); keys see nothing', async () => {
      const before = await countRows(t.db);
      const response = await putDraft('new-one', newArticle({ slug: 'coming-soon', title: 'Coming soon' }));
      assert.equal(response.statusCode, 201, response.body);
      const article = response.json().data;
      assert.equal(article.published, false);
      assert.equal(article.publishedAt, null);
      assert.equal(article.draft.slug, 'coming-soon');
      assert.equal(article.draft.title, 'Coming soon');
      assert.equal(article.draft.updatedAt, iso(START_TIME));
      assert.deepEqual(Object.keys(article.draft).sort(), [
        'blocks',
        'related',
        'seo',
        'slug',
        'title',
        'updatedAt',
      ]);
      assert.equal(article.publishAt, null);
      assert.equal(article.unpublishAt, null);
      assert.deepEqual(await list(), []);
      assert.equal((await bySlug('coming-soon')).statusCode, 404);
      const after = await countRows(t.db);
      assert.equal(after.events, before.events, 'a draft sends no webhook');
      assert.equal((await putDraft('new-one', newArticle({ slug: 'coming-soon' }))).statusCode, 200);
    });

    test('a draft of a published article changes nothing served and sends no event', async () => {
      await put('a', newArticle({ slug: 'live', title: 'Live title', published: true }));
      const served = await bySlug('live');
      const eventsBefore = (await listEvents(t.db)).length;
      t.clock.advance(5_000);
      const saved = await putDraft('a', {
        slug: 'live-renamed',
        title: 'Draft title',
        blocks: [paragraph('Work in progress.')],
        related: ['elsewhere'],
        seo: { description: 'Draft description' },
      });
      assert.equal(saved.statusCode, 200, saved.body);
      const article = saved.json().data;
      assert.equal(article.title, 'Live title', 'the admin article keeps what it serves');
      assert.equal(article.published, true);
      assert.deepEqual(article.draft, {
        slug: 'live-renamed',
        title: 'Draft title',
        blocks: [paragraph('Work in progress.')],
        seo: { description: 'Draft description' },
        related: ['elsewhere'],
        updatedAt: iso(START_TIME + 5_000),
      });
      assert.equal(article.updatedAt, iso(START_TIME), 'what it serves did not change');
      const again = await bySlug('live');
      assert.equal(again.body, served.body);
      assert.equal(again.headers.etag, served.headers.etag);
      assert.equal((await bySlug('live-renamed')).statusCode, 404);
      assert.equal((await listEvents(t.db)).length, eventsBefore);
      assert.deepEqual((await get('a')).draft, article.draft);
    });

    test('publish makes the draft the served content, clears it and sends content.updated with previousSlug', async () => {
      await put('a', newArticle({ slug: 'first', title: 'First', published: true }));
      await putDraft('a', newArticle({ slug: 'second', title: 'Second' }));
      t.clock.advance(60_000);
      const published = await t.admin('POST', `${one('a')}/publish`);
      assert.equal(published.statusCode, 200, published.body);
      const article = published.json().data;
      assert.equal(article.slug, 'second');
      assert.equal(article.title, 'Second');
      assert.equal(article.draft, null);
      assert.equal(article.updatedAt, iso(START_TIME + 60_000));
      assert.equal(article.publishedAt, iso(START_TIME), 'the first publish time stays');
      assert.equal((await bySlug('first')).statusCode, 404);
      assert.equal((await bySlug('second')).json().data.title, 'Second');
      const events = await listEvents(t.db);
      assert.deepEqual(events.at(-1)!.payload.data, { id: 'a', slug: 'second', previousSlug: 'first' });
      assert.equal(events.at(-1)!.type, 'content.updated');
    });

    test('publishing an unpublished article with a draft serves the draft and sends content.created', async () => {
      await putDraft('a', newArticle({ slug: 'draft-only', title: 'Only a draft' }));
      const response = await t.admin('POST', `${one('a')}/publish`);
      assert.equal(response.json().data.published, true);
      assert.equal(response.json().data.draft, null);
      assert.equal((await bySlug('draft-only')).json().data.title, 'Only a draft');
      const events = await listEvents(t.db);
      assert.equal(events.length, 1);
      assert.equal(events[0]!.type, 'content.created');
      assert.deepEqual(events[0]!.payload.data, { id: 'a', slug: 'draft-only' });
    });

    test('the live PUT keeps the draft; unpublish keeps it too', async () => {
      await put('a', newArticle({ slug: 'live', published: true }));
      const draft = (await putDraft('a', newArticle({ slug: 'drafted', title: 'Drafted' }))).json().data
        .draft;
      const replaced = await put('a', newArticle({ slug: 'live', title: 'Live edit' }));
      assert.equal(replaced.statusCode, 200);
      assert.deepEqual(replaced.json().data.draft, draft);
      assert.equal((await bySlug('live')).json().data.title, 'Live edit');
      const unpublished = await t.admin('POST', `${one('a')}/unpublish`);
      assert.deepEqual(unpublished.json().data.draft, draft);
    });

    test('saving the same draft again keeps its updatedAt', async () => {
      const body = newArticle({ slug: 'same' });
      const first = (await putDraft('a', body)).json().data.draft;
      t.clock.advance(1_000);
      assert.equal((await putDraft('a', body)).json().data.draft.updatedAt, first.updatedAt);
      t.clock.advance(1_000);
      const changed = await putDraft('a', { ...body, title: 'Changed' });
      assert.equal(changed.json().data.draft.updatedAt, iso(START_TIME + 2_000));
    });

    test('DELETE …/draft drops the draft (204), then 404; what is served stays', async () => {
      await put('a', newArticle({ slug: 'live', title: 'Live', published: true }));
      await putDraft('a', newArticle({ slug: 'live', title: 'Draft' }));
      const dropped = await t.admin('DELETE', `${one('a')}/draft`);
      assert.equal(dropped.statusCode, 204);
      assert.equal(dropped.body, '');
      assert.equal((await get('a')).draft, null);
      assert.equal((await bySlug('live')).json().data.title, 'Live');
      assertError(await t.admin('DELETE', `${one('a')}/draft`), 404, 'not_found', 'no draft');
      assertError(await t.admin('DELETE', `${one('nope')}/draft`), 404, 'not_found', 'no article');
    });

    describe('slugs', () => {
      test("a draft may not take another article's stored slug, published or not (409)", async () => {
        await put('a', newArticle({ slug: 'taken-live', published: true }));
        await put('b', newArticle({ slug: 'taken-hidden' }));
        for (const slug of ['taken-live', 'taken-hidden']) {
          assertError(await putDraft('c', newArticle({ slug })), 409, 'conflict', slug);
          await put('c', newArticle({ slug: 'c-own' }));
          assertError(
            await putDraft('c', newArticle({ slug })),
            409,
            'conflict',
            `${slug} on an existing article`,
          );
        }
      });

      test("a draft may not take another article's draft slug; a live PUT may not either", async () => {
        await putDraft('a', newArticle({ slug: 'drafted-slug' }));
        await put('b', newArticle({ slug: 'b-own', published: true }));
        assertError(await putDraft('b', newArticle({ slug: 'drafted-slug' })), 409, 'conflict', 'draft');
        await put('x', newArticle({ slug: 'x-live' }));
        await putDraft('x', newArticle({ slug: 'x-renamed' }));
        assertError(await put('b', newArticle({ slug: 'x-renamed' })), 409, 'conflict', 'live PUT');
        // The article's own slugs are its own to keep or swap.
        assert.equal((await putDraft('x', newArticle({ slug: 'x-live' }))).statusCode, 200);
        assert.equal((await put('x', newArticle({ slug: 'x-renamed' }))).statusCode, 200);
      });

      test('an article holding only its draft gives up the slugs its draft leaves', async () => {
        const eventsBefore = (await listEvents(t.db)).length;
        assert.equal((await putDraft('n1', newArticle({ slug: 'first-name' }))).statusCode, 201);
        assert.equal((await putDraft('n1', newArticle({ slug: 'second-name' }))).statusCode, 200);
        assert.equal((await putDraft('n2', newArticle({ slug: 'first-name' }))).statusCode, 201);
        assertError(await putDraft('n2', newArticle({ slug: 'second-name' })), 409, 'conflict', 'still held');
        assert.deepEqual(await list(), [], 'content keys see none of it');
        assert.equal((await listEvents(t.db)).length, eventsBefore, 'and no webhook');
        // Once published, the article's slug is its own, whatever its next draft says.
        assert.equal((await t.admin('POST', `${one('n1')}/publish`)).statusCode, 200);
        assert.equal((await putDraft('n1', newArticle({ slug: 'third-name' }))).statusCode, 200);
        assertError(await putDraft('n2', newArticle({ slug: 'second-name' })), 409, 'conflict', 'published');
        assert.equal((await bySlug('second-name')).statusCode, 200);
      });

      test('a draft slug follows the slug rules and is stored in NFC', async () => {
        for (const slug of ['a/b', 'has space', '..', 'x%41', '\u200bzero']) {
          assertInvalidBody(await putDraft('a', newArticle({ slug })), '/slug', JSON.stringify(slug));
        }
        const decomposed = 'cafe\u0301';
        const saved = await putDraft('a', newArticle({ slug: decomposed }));
        assert.equal(saved.json().data.draft.slug, 'caf\u00e9');
      });
    });

    describe('bad input loses nothing', () => {
      test('a draft is validated exactly like an article: blocks, links, seo', async () => {
        await put('a', newArticle({ slug: 'kept', title: 'Kept', published: true }));
        const before = await get('a');
        const cases: [unknown, string][] = [
          [{ ...newArticle(), blocks: [{ type: 'heading', level: 7, text: 'x' }] }, '/blocks/0/level'],
          [
            {
              ...newArticle(),
              blocks: [{ type: 'paragraph', content: [{ text: 'x', href: 'javascript:alert(1)' }] }],
            },
            '/blocks/0/content/0/href',
          ],
          [{ ...newArticle(), seo: { canonicalPath: '/x' } }, '/seo'],
          [{ ...newArticle(), seo: { ogImage: 'not a url' } }, '/seo/ogImage'],
          [{ ...newArticle(), published: true }, '/published'],
          [{ title: 'No slug', blocks: [] }, '/slug'],
        ];
        for (const [body, path] of cases) {
          const response = await putDraft('a', body);
          assert.equal(response.statusCode, 400, `${path}: ${response.body}`);
          assertError(response, 400, 'invalid_body', path);
        }
        assert.deepEqual(await get('a'), before);
      });
    });
  });
}
