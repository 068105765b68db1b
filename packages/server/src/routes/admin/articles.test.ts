import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { ArticleInput, Block } from '@folio/schema';
import { assertError, assertInvalidBody, countRows, listEvents } from '../../test/assertions.ts';
import { DIALECTS } from '../../test/databases.ts';
import { createTestApp, newArticle, paragraph, START_TIME, type TestApp } from '../../test/test-app.ts';

const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

for (const dialect of DIALECTS) {
  describe(`management API: articles [${dialect}]`, () => {
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

    const articles = (project = projectId) => `/admin/v1/projects/${project}/articles`;
    const one = (id: string, project = projectId) => `${articles(project)}/${id}`;
    const put = (id: string, body: unknown, project = projectId) => t.admin('PUT', one(id, project), body);
    const publish = (id: string) => t.admin('POST', `${one(id)}/publish`);
    const unpublish = (id: string) => t.admin('POST', `${one(id)}/unpublish`);
    const get = async (id: string) => (await t.admin('GET', one(id))).json().data;
    const bySlug = (slug: string) =>
      t.deliver(key, `/api/v1/projects/${projectId}/content/by-slug/${encodeURIComponent(slug)}`);

    describe('create, replace, read, delete', () => {
      test('PUT creates (201) and then replaces (200) the article with the caller-chosen id', async () => {
        const input = newArticle({ slug: 'hello', title: 'Hello' });
        const created = await put('hello-1', input);
        assert.equal(created.statusCode, 201, created.body);
        const data = created.json().data;
        assert.equal(created.json().success, true);
        assert.deepEqual(Object.keys(data).sort(), [
          'blocks',
          'createdAt',
          'draft',
          'id',
          'publishAt',
          'published',
          'publishedAt',
          'related',
          'seo',
          'slug',
          'title',
          'unpublishAt',
          'updatedAt',
        ]);
        assert.equal(data.id, 'hello-1');
        assert.equal(data.slug, 'hello');
        assert.equal(data.title, 'Hello');
        assert.deepEqual(data.blocks, input.blocks);
        assert.deepEqual(data.seo, {});
        assert.deepEqual(data.related, []);
        assert.equal(data.createdAt, iso(START_TIME));
        assert.equal(data.updatedAt, iso(START_TIME));

        t.clock.advance(MINUTE);
        const replaced = await put('hello-1', { ...input, title: 'Hello again' });
        assert.equal(replaced.statusCode, 200, replaced.body);
        assert.equal(replaced.json().data.title, 'Hello again');
        assert.equal(replaced.json().data.createdAt, iso(START_TIME));
        assert.equal(replaced.json().data.updatedAt, iso(START_TIME + MINUTE));
        assert.equal((await countRows(t.db)).articles, 1);
        assert.deepEqual(await get('hello-1'), replaced.json().data);
      });

      test('a replace drops fields it no longer sends (seo, related)', async () => {
        await put('a', newArticle({ slug: 'a', seo: { title: 'SEO title' }, related: ['b'] }));
        const replaced = await put('a', { slug: 'a', title: 'A', blocks: [] });
        assert.deepEqual(replaced.json().data.seo, {});
        assert.deepEqual(replaced.json().data.related, []);
      });

      test('new articles start unpublished unless published: true; the state is kept when omitted', async () => {
        const draft = await put('draft', newArticle({ slug: 'draft' }));
        assert.equal(draft.json().data.published, false);
        assert.equal(draft.json().data.publishedAt, null);
        assertError(await bySlug('draft'), 404, 'not_found');

        const live = await put('live', newArticle({ slug: 'live', published: true }));
        assert.equal(live.statusCode, 201);
        assert.equal(live.json().data.published, true);
        assert.equal(live.json().data.publishedAt, iso(START_TIME));
        assert.equal((await bySlug('live')).statusCode, 200);

        // Omitting `published` on a replace keeps the state either way.
        t.clock.advance(MINUTE);
        assert.equal((await put('live', newArticle({ slug: 'live' }))).json().data.published, true);
        assert.equal((await put('draft', newArticle({ slug: 'draft' }))).json().data.published, false);
        assert.equal((await bySlug('live')).statusCode, 200);

        // published: false on a replace unpublishes.
        assert.equal(
          (await put('live', newArticle({ slug: 'live', published: false }))).json().data.published,
          false,
        );
        assertError(await bySlug('live'), 404, 'not_found');
      });

      test('GET list shows every article with its published state; GET one reads it', async () => {
        await put('p', newArticle({ slug: 'p', published: true }));
        t.clock.advance(MINUTE);
        await put('d', newArticle({ slug: 'd' }));
        const response = await t.admin('GET', articles());
        assert.equal(response.statusCode, 200);
        const body = response.json();
        assert.equal(body.success, true);
        assert.equal(body.pagination.total, 2);
        const state = Object.fromEntries(
          body.data.map((a: { id: string; published: boolean }) => [a.id, a.published]),
        );
        assert.deepEqual(state, { p: true, d: false });

        const read = await t.admin('GET', one('d'));
        assert.equal(read.statusCode, 200);
        assert.equal(read.json().data.id, 'd');
        assert.equal(read.json().data.published, false);
        assert.deepEqual(
          read.json().data,
          body.data.find((a: { id: string }) => a.id === 'd'),
        );
      });

      test('GET list answers all articles, drafts included, and pages like the delivery list', async () => {
        for (let i = 1; i <= 25; i++) {
          t.clock.advance(MINUTE);
          await put(`a${String(i).padStart(2, '0')}`, newArticle({ published: i % 2 === 0 }));
        }
        const all = (await t.admin('GET', articles())).json();
        assert.equal(all.pagination.total, 25);
        assert.equal(all.data.length, 25, 'the list without a query holds every article');
        assert.equal(all.pagination.hasNext, false);
        // Most recently updated first, as the route documents.
        assert.equal(all.data[0].id, 'a25');
        assert.equal(all.data[24].id, 'a01');

        const page = (await t.admin('GET', `${articles()}?limit=10&page=3`)).json();
        assert.deepEqual(page.pagination, {
          page: 3,
          limit: 10,
          total: 25,
          totalPages: 3,
          hasNext: false,
          hasPrev: true,
        });
        assert.deepEqual(
          page.data.map((a: { id: string }) => a.id),
          ['a05', 'a04', 'a03', 'a02', 'a01'],
        );
        assertError(await t.admin('GET', `${articles()}?limit=0`), 400, 'invalid_query');
        assertError(await t.admin('GET', `${articles()}?page=abc`), 400, 'invalid_query');
      });

      test('unknown project or article answers 404 on every article route', async () => {
        await put('a', newArticle({ slug: 'a' }));
        const cases: [string, string, unknown?][] = [
          ['GET', articles('prj_unknown')],
          ['GET', one('a', 'prj_unknown')],
          ['PUT', one('a', 'prj_unknown'), newArticle()],
          ['POST', `${one('a', 'prj_unknown')}/publish`],
          ['DELETE', one('a', 'prj_unknown')],
          ['GET', one('nope')],
          ['POST', `${one('nope')}/publish`],
          ['POST', `${one('nope')}/unpublish`],
          ['DELETE', one('nope')],
        ];
        const before = await countRows(t.db);
        for (const [method, url, body] of cases) {
          assertError(await t.admin(method as 'GET', url, body), 404, 'not_found', `${method} ${url}`);
        }
        assert.deepEqual(await countRows(t.db), before);
      });

      test("an article of one project is not reachable through another project's path", async () => {
        const other = (await t.createProject({ name: 'Other' })).id;
        await put('shared-id', newArticle({ slug: 'mine', published: true }));
        assertError(await t.admin('GET', one('shared-id', other)), 404, 'not_found');
        assertError(await t.admin('DELETE', one('shared-id', other)), 404, 'not_found');
        // The same id in another project is another article.
        assert.equal((await put('shared-id', newArticle({ slug: 'theirs' }), other)).statusCode, 201);
        assert.equal((await get('shared-id')).slug, 'mine');
      });

      test('DELETE answers 204 and the article is gone from admin and delivery', async () => {
        await put('gone', newArticle({ slug: 'gone', published: true }));
        const response = await t.admin('DELETE', one('gone'));
        assert.equal(response.statusCode, 204);
        assert.equal(response.body, '');
        assertError(await t.admin('GET', one('gone')), 404, 'not_found');
        assertError(await bySlug('gone'), 404, 'not_found');
        assert.equal((await t.admin('GET', articles())).json().data.length, 0);
        assert.equal(
          (await t.deliver(key, `/api/v1/projects/${projectId}/content`)).json().pagination.total,
          0,
        );
        assertError(await t.admin('DELETE', one('gone')), 404, 'not_found');
        // The slug is free again.
        assert.equal((await put('new', newArticle({ slug: 'gone' }))).statusCode, 201);
      });

      test('a slug change on a published article moves it in the delivery API at once', async () => {
        await put('a', newArticle({ slug: 'old-slug', published: true }));
        await put('a', newArticle({ slug: 'new-slug' }));
        assertError(await bySlug('old-slug'), 404, 'not_found');
        const served = (await bySlug('new-slug')).json().data;
        assert.equal(served.id, 'a');
        assert.equal(served.seo.canonicalPath, '/blog/new-slug');
        // The old slug is free for another article.
        assert.equal((await put('b', newArticle({ slug: 'old-slug' }))).statusCode, 201);
      });

      test('blocks: [] is accepted; related may name slugs that do not exist yet', async () => {
        const response = await put('empty', {
          slug: 'empty',
          title: 'Empty',
          blocks: [],
          related: ['later', 'never'],
          published: true,
        });
        assert.equal(response.statusCode, 201, response.body);
        assert.deepEqual(response.json().data.blocks, []);
        assert.deepEqual(response.json().data.related, ['later', 'never']);
        const served = (await bySlug('empty')).json().data;
        assert.deepEqual(served.blocks, []);
        assert.deepEqual(served.related, []);

        await put('later', newArticle({ slug: 'later', title: 'Later', published: true }));
        assert.deepEqual(
          (await bySlug('empty')).json().data.related.map((r: { slug: string }) => r.slug),
          ['later'],
        );
      });
    });

    describe('publishing and timestamps', () => {
      test('publish answers 200; publishedAt is set at the first publish and kept after unpublish and republish', async () => {
        await put('a', newArticle({ slug: 'a' }));
        t.clock.advance(MINUTE);
        const first = await publish('a');
        assert.equal(first.statusCode, 200, first.body);
        assert.equal(first.json().data.published, true);
        assert.equal(first.json().data.publishedAt, iso(START_TIME + MINUTE));
        assert.equal((await bySlug('a')).json().data.publishedAt, iso(START_TIME + MINUTE));

        t.clock.advance(MINUTE);
        const off = await unpublish('a');
        assert.equal(off.statusCode, 200);
        assert.equal(off.json().data.published, false);
        assert.equal(off.json().data.publishedAt, iso(START_TIME + MINUTE));
        assertError(await bySlug('a'), 404, 'not_found');

        t.clock.advance(MINUTE);
        const again = await publish('a');
        assert.equal(again.json().data.published, true);
        assert.equal(again.json().data.publishedAt, iso(START_TIME + MINUTE));
        assert.equal((await bySlug('a')).json().data.publishedAt, iso(START_TIME + MINUTE));
      });

      test('updatedAt changes on each publish, but not on publishing an already published article', async () => {
        await put('a', newArticle({ slug: 'a' }));
        t.clock.advance(MINUTE);
        assert.equal((await publish('a')).json().data.updatedAt, iso(START_TIME + MINUTE));
        t.clock.advance(MINUTE);
        const noop = await publish('a');
        assert.equal(noop.statusCode, 200);
        assert.equal(noop.json().data.updatedAt, iso(START_TIME + MINUTE));
        assert.equal((await bySlug('a')).json().data.updatedAt, iso(START_TIME + MINUTE));

        await unpublish('a');
        t.clock.advance(MINUTE);
        assert.equal((await publish('a')).json().data.updatedAt, iso(START_TIME + 3 * MINUTE));
      });

      test('updatedAt changes when slug, title, blocks, seo or related change', async () => {
        const base: ArticleInput = {
          slug: 'a',
          title: 'A',
          blocks: [paragraph('Body.')],
          seo: { title: 'SEO' },
          related: ['x'],
        };
        await put('a', { ...base, published: true });
        const changes: [string, ArticleInput][] = [
          ['slug', { ...base, slug: 'a2' }],
          ['title', { ...base, slug: 'a2', title: 'A2' }],
          ['blocks', { ...base, slug: 'a2', title: 'A2', blocks: [paragraph('Other body.')] }],
          [
            'seo',
            { ...base, slug: 'a2', title: 'A2', blocks: [paragraph('Other body.')], seo: { title: 'SEO 2' } },
          ],
          [
            'related',
            {
              ...base,
              slug: 'a2',
              title: 'A2',
              blocks: [paragraph('Other body.')],
              seo: { title: 'SEO 2' },
              related: ['y'],
            },
          ],
        ];
        let at = START_TIME;
        for (const [field, body] of changes) {
          t.clock.advance(MINUTE);
          at += MINUTE;
          const response = await put('a', body);
          assert.equal(response.statusCode, 200, `${field}: ${response.body}`);
          assert.equal(response.json().data.updatedAt, iso(at), field);
          assert.equal(response.json().data.publishedAt, iso(START_TIME), field);
          assert.equal((await bySlug(body.slug)).json().data.updatedAt, iso(at), field);
        }
      });

      test('a replace that changes nothing (even with keys in another order) keeps updatedAt', async () => {
        const body = {
          slug: 'same',
          title: 'Same',
          blocks: [
            { type: 'heading', level: 2, text: 'Intro' },
            { type: 'paragraph', content: [{ text: 'Link', href: 'https://example.com', bold: true }] },
          ],
          seo: { title: 'T', description: 'D', jsonLd: { '@type': 'Thing', name: 'n' } },
          related: ['b', 'c'],
          published: true,
        };
        await put('same', body);
        t.clock.advance(MINUTE);
        const shuffled = {
          published: true,
          related: ['b', 'c'],
          seo: { jsonLd: { name: 'n', '@type': 'Thing' }, description: 'D', title: 'T' },
          blocks: [
            { text: 'Intro', level: 2, type: 'heading' },
            { content: [{ bold: true, href: 'https://example.com', text: 'Link' }], type: 'paragraph' },
          ],
          title: 'Same',
          slug: 'same',
        };
        for (const replay of [body, shuffled, { ...body, published: undefined }]) {
          const response = await put('same', replay);
          assert.equal(response.statusCode, 200);
          assert.equal(response.json().data.updatedAt, iso(START_TIME));
        }
        assert.equal((await bySlug('same')).json().data.updatedAt, iso(START_TIME));
        // Order inside arrays is content: swapping related is a change.
        const swapped = await put('same', { ...body, related: ['c', 'b'] });
        assert.equal(swapped.json().data.updatedAt, iso(START_TIME + MINUTE));
      });

      test('an seo that spells out its defaults serves the same: kept, with no new updatedAt or event', async () => {
        const body = { slug: 's', title: 'Spelled', blocks: [paragraph('First words.')], published: true };
        await put('s', body);
        const served = (await bySlug('s')).body;
        const events = (await listEvents(t.db)).length;
        t.clock.advance(MINUTE);
        const seo = { title: 'Spelled', description: 'First words.', ogTitle: 'Spelled', ogImage: null };
        const spelled = await put('s', { ...body, seo });
        assert.equal(spelled.statusCode, 200, spelled.body);
        assert.equal(spelled.json().data.updatedAt, iso(START_TIME));
        assert.deepEqual(spelled.json().data.seo, seo, 'kept as ingested');
        assert.equal((await bySlug('s')).body, served);
        assert.equal(
          (await listEvents(t.db)).length,
          events,
          'a replace that serves the same recorded an event',
        );
        // Spelling out a value that differs from the default is a change.
        const changed = await put('s', { ...body, seo: { ...seo, description: 'Other words.' } });
        assert.equal(changed.json().data.updatedAt, iso(START_TIME + MINUTE));
        assert.equal((await listEvents(t.db)).length, events + 1);
      });

      test('a change under a "__proto__" key of jsonLd is a change, not a no-op', async () => {
        // JSON.parse makes "__proto__" an ordinary own key, as it is in the request body.
        const jsonLd = (text: string) => JSON.parse(text) as Record<string, unknown>;
        const versions = [
          jsonLd('{"@type": "Thing"}'),
          jsonLd('{"@type": "Thing", "__proto__": {"x": 1}}'),
          jsonLd('{"@type": "Thing", "__proto__": {"x": 2}}'),
          jsonLd('{"@type": "Thing"}'),
        ];
        let at = START_TIME;
        for (const [i, value] of versions.entries()) {
          const response = await put('a', {
            slug: 'a',
            title: 'A',
            blocks: [],
            seo: { jsonLd: value },
            published: true,
          });
          assert.ok([200, 201].includes(response.statusCode), response.body);
          assert.equal(response.json().data.updatedAt, iso(at), `version ${i}`);
          assert.equal(
            JSON.stringify(response.json().data.seo.jsonLd),
            JSON.stringify(value),
            `version ${i}`,
          );
          assert.equal(JSON.stringify((await bySlug('a')).json().data.seo.jsonLd), JSON.stringify(value));
          t.clock.advance(MINUTE);
          at += MINUTE;
        }
      });
    });

    describe('events', () => {
      test('publish → content.created with the payload { event, projectId, timestamp, data: { id, slug } }', async () => {
        await put('a', newArticle({ slug: 'a' }));
        assert.deepEqual(await listEvents(t.db), [], 'an unpublished article has no event');
        t.clock.advance(MINUTE);
        await publish('a');
        const events = await listEvents(t.db);
        assert.equal(events.length, 1);
        const [event] = events;
        assert.match(event!.id, /^msg_[A-Za-z0-9_-]+$/);
        assert.equal(event!.project_id, projectId);
        assert.equal(event!.type, 'content.created');
        assert.equal(event!.created_at, START_TIME + MINUTE);
        assert.deepEqual(event!.payload, {
          event: 'content.created',
          projectId,
          timestamp: iso(START_TIME + MINUTE),
          data: { id: 'a', slug: 'a' },
        });
      });

      test('creating with published: true records content.created', async () => {
        await put('a', newArticle({ slug: 'a', published: true }));
        const events = await listEvents(t.db);
        assert.deepEqual(
          events.map((e) => [e.type, e.payload.data]),
          [['content.created', { id: 'a', slug: 'a' }]],
        );
      });

      test('a change while published → content.updated, with previousSlug when the slug changed', async () => {
        await put('a', newArticle({ slug: 'a', title: 'A', published: true }));
        t.clock.advance(MINUTE);
        await put('a', newArticle({ slug: 'a', title: 'A changed' }));
        t.clock.advance(MINUTE);
        await put('a', newArticle({ slug: 'a-renamed', title: 'A changed' }));
        const events = await listEvents(t.db);
        assert.deepEqual(
          events.map((e) => e.payload),
          [
            { event: 'content.created', projectId, timestamp: iso(START_TIME), data: { id: 'a', slug: 'a' } },
            {
              event: 'content.updated',
              projectId,
              timestamp: iso(START_TIME + MINUTE),
              data: { id: 'a', slug: 'a' },
            },
            {
              event: 'content.updated',
              projectId,
              timestamp: iso(START_TIME + 2 * MINUTE),
              data: { id: 'a', slug: 'a-renamed', previousSlug: 'a' },
            },
          ],
        );
        assert.equal(new Set(events.map((e) => e.id)).size, 3, 'each event has its own id');
      });

      test('unpublish → content.unpublished; delete of a published article → content.deleted', async () => {
        await put('a', newArticle({ slug: 'a', published: true }));
        t.clock.advance(MINUTE);
        await unpublish('a');
        t.clock.advance(MINUTE);
        await publish('a');
        t.clock.advance(MINUTE);
        assert.equal((await t.admin('DELETE', one('a'))).statusCode, 204);
        const events = await listEvents(t.db);
        assert.deepEqual(
          events.map((e) => [e.type, e.payload.event, e.payload.data, e.payload.timestamp]),
          [
            ['content.created', 'content.created', { id: 'a', slug: 'a' }, iso(START_TIME)],
            ['content.unpublished', 'content.unpublished', { id: 'a', slug: 'a' }, iso(START_TIME + MINUTE)],
            ['content.created', 'content.created', { id: 'a', slug: 'a' }, iso(START_TIME + 2 * MINUTE)],
            ['content.deleted', 'content.deleted', { id: 'a', slug: 'a' }, iso(START_TIME + 3 * MINUTE)],
          ],
        );
      });

      test('no event for no-ops, for changes to unpublished articles, or for deleting an unpublished article', async () => {
        const body = newArticle({ slug: 'a', published: true });
        await put('a', body);
        const afterCreate = (await listEvents(t.db)).length;
        t.clock.advance(MINUTE);
        await put('a', body); // identical replace
        await put('a', { ...body, published: undefined }); // identical, state omitted
        await publish('a'); // already published
        assert.equal((await listEvents(t.db)).length, afterCreate, 'a no-op recorded an event');

        await put('d', newArticle({ slug: 'd' }));
        await put('d', newArticle({ slug: 'd2', title: 'Changed while draft' }));
        await unpublish('d'); // already unpublished
        assert.equal((await t.admin('DELETE', one('d'))).statusCode, 204);
        assert.equal((await listEvents(t.db)).length, afterCreate, 'a draft recorded an event');
      });

      test('events belong to their project', async () => {
        const other = (await t.createProject({ name: 'Other' })).id;
        await put('a', newArticle({ slug: 'a', published: true }), other);
        const [event] = await listEvents(t.db);
        assert.equal(event!.project_id, other);
        assert.equal(event!.payload.projectId, other);
      });
    });

    describe('concurrent writes', () => {
      const ROUNDS = 5;
      const statuses = (responses: { statusCode: number }[]) => responses.map((r) => r.statusCode).sort();

      test('publishing one article from several requests at once records one content.created', async () => {
        for (let round = 0; round < ROUNDS; round++) {
          await put(`a${round}`, newArticle({ slug: `a${round}` }));
          const responses = await Promise.all([1, 2, 3, 4].map(() => publish(`a${round}`)));
          assert.deepEqual(statuses(responses), [200, 200, 200, 200]);
        }
        const created = (await listEvents(t.db)).map((e) => `${e.type}:${e.payload.data.id}`).sort();
        assert.deepEqual(
          created,
          ['a0', 'a1', 'a2', 'a3', 'a4'].map((id) => `content.created:${id}`),
        );
      });

      test('deleting one published article from two requests at once: one 204, one 404, one event', async () => {
        for (let round = 0; round < ROUNDS; round++) {
          await put(`d${round}`, newArticle({ slug: `d${round}`, published: true }));
          const responses = await Promise.all([1, 2].map(() => t.admin('DELETE', one(`d${round}`))));
          assert.deepEqual(statuses(responses), [204, 404], `round ${round}`);
        }
        const deleted = (await listEvents(t.db)).filter((e) => e.type === 'content.deleted');
        assert.equal(deleted.length, ROUNDS);
      });

      test('the same new article PUT several times at once: one 201, the rest 200 replaces', async () => {
        for (let round = 0; round < ROUNDS; round++) {
          const body = newArticle({ slug: `n${round}`, published: true });
          const responses = await Promise.all([1, 2, 3].map(() => put(`n${round}`, body)));
          assert.deepEqual(
            statuses(responses),
            [200, 200, 201],
            `round ${round}: ${responses.map((r) => r.body)}`,
          );
        }
        assert.equal((await listEvents(t.db)).length, ROUNDS, 'one content.created per article');
      });

      test('two articles claiming one slug at once: one 201, one 409', async () => {
        for (let round = 0; round < ROUNDS; round++) {
          const responses = await Promise.all(
            ['x', 'y'].map((id) => put(`${id}${round}`, newArticle({ slug: `s${round}` }))),
          );
          assert.deepEqual(statuses(responses), [201, 409], `round ${round}`);
        }
        assert.equal((await countRows(t.db)).articles, ROUNDS);
      });
    });

    describe('slugs and ids', () => {
      test('a duplicate slug in the same project → 409 conflict and nothing changes; another project is fine', async () => {
        await put('a', newArticle({ slug: 'taken', title: 'A', published: true }));
        await put('b', newArticle({ slug: 'free', title: 'B', published: true }));
        const before = await countRows(t.db);
        const beforeB = await get('b');
        t.clock.advance(MINUTE);

        assertError(await put('c', newArticle({ slug: 'taken' })), 409, 'conflict', 'new article');
        assertError(
          await put('b', newArticle({ slug: 'taken', title: 'B changed' })),
          409,
          'conflict',
          'replace',
        );
        assert.deepEqual(await countRows(t.db), before);
        assert.deepEqual(await get('b'), beforeB);
        assertError(await t.admin('GET', one('c')), 404, 'not_found');

        // Even when the holder is unpublished, the slug is taken.
        await put('d', newArticle({ slug: 'draft-slug' }));
        assertError(await put('e', newArticle({ slug: 'draft-slug' })), 409, 'conflict', 'draft holder');

        const other = (await t.createProject({ name: 'Other' })).id;
        assert.equal((await put('a', newArticle({ slug: 'taken' }), other)).statusCode, 201);
        assert.equal((await put('z', newArticle({ slug: 'free' }), other)).statusCode, 201);
      });

      test('an article keeps its own slug on replace (not a conflict with itself)', async () => {
        await put('a', newArticle({ slug: 'mine' }));
        assert.equal((await put('a', newArticle({ slug: 'mine', title: 'New title' }))).statusCode, 200);
      });

      test('article ids: [A-Za-z0-9_-]{1,64}', async () => {
        for (const id of ['a', 'A-Z_0-9', 'x'.repeat(64)]) {
          assert.equal((await put(id, newArticle())).statusCode, 201, id);
        }
        const before = await countRows(t.db);
        for (const id of ['x'.repeat(65), 'a.b', '🚀', 'a%20b', 'caf%C3%A9', 'a~b', 'a:b']) {
          const response = await put(id, newArticle());
          assert.equal(response.statusCode, 400, `${id}: ${response.body}`);
          assert.equal(response.json().success, false);
          assert.match(response.json().error.code, /^invalid_(query|body)$/, id);
        }
        assert.deepEqual(await countRows(t.db), before);
      });

      test('slugs: 1–200 characters; emoji and other letters are fine', async () => {
        const accepted = [
          'a',
          'x'.repeat(200),
          '🚀-launch',
          'café',
          'ünïcödé-日本語',
          'a.b',
          'a_b~c',
          "it's",
          'a+b=c',
        ];
        for (const [i, slug] of accepted.entries()) {
          const response = await put(`ok${i}`, newArticle({ slug, published: true }));
          assert.equal(response.statusCode, 201, `${slug}: ${response.body}`);
          assert.equal(response.json().data.slug, slug);
          assert.equal((await bySlug(slug)).json().data.slug, slug, slug);
        }
      });

      test('slug length counts characters, not UTF-16 units: 200 emoji are fine, 201 are not', async () => {
        const response = await put('emoji', newArticle({ slug: '🚀'.repeat(200), published: true }));
        assert.equal(response.statusCode, 201, response.body);
        assert.equal((await bySlug('🚀'.repeat(200))).statusCode, 200);
        assertInvalidBody(await put('emoji2', newArticle({ slug: '🚀'.repeat(201) })), '/slug');
      });

      test('slugs with / ? # %, whitespace or control characters, empty or over 200 characters answer 400 for /slug', async () => {
        const refused = [
          '',
          'x'.repeat(201),
          'a/b',
          'a?b',
          'a#b',
          'a%20b',
          '100%',
          'a b',
          ' a',
          'a\tb',
          'a\nb',
          'a\rb',
          'a\u0001b',
          'a\u001fb',
          'a\u007fb',
          'a\u00a0b',
          'a\u2028b',
        ];
        const before = await countRows(t.db);
        for (const slug of refused) {
          assertInvalidBody(await put('bad', newArticle({ slug })), '/slug', JSON.stringify(slug));
        }
        assert.deepEqual(await countRows(t.db), before);
      });

      test('related entries follow the slug rules', async () => {
        assertInvalidBody(await put('a', newArticle({ related: ['ok', 'not/ok'] })), '/related/1');
        assertInvalidBody(await put('a', newArticle({ related: [''] })), '/related/0');
      });
    });

    describe('links and seo', () => {
      const withRunHref = (href: string): Block[] => [
        { type: 'heading', level: 2, text: 'Title' },
        paragraph('First.'),
        { type: 'paragraph', content: [{ text: 'click', href }] },
      ];
      const withButtonHref = (buttonHref: string): Block[] => [
        paragraph('First.'),
        { type: 'cta', heading: 'Join', buttonLabel: 'Go', buttonHref },
      ];
      const hostile = [
        'javascript:alert(1)',
        'JavaScript:alert(1)',
        ' javascript:alert(1)',
        'java\tscript:alert(1)',
        'data:text/html,<script>alert(1)</script>',
        'vbscript:msgbox(1)',
        '//evil.example',
        '/\\evil.example',
        '\\\\evil.example',
        'mailto:someone@example.com',
        'tel:+123',
        'ftp://example.com',
        'http:evil.example',
        'https:/evil.example',
        'evil.example',
        '',
      ];

      test('a hostile href in a text run → 400 naming /blocks/{index}/content/{run}/href', async () => {
        const before = await countRows(t.db);
        for (const href of hostile) {
          assertInvalidBody(
            await put('a', newArticle({ blocks: withRunHref(href) })),
            '/blocks/2/content/0/href',
            href,
          );
        }
        assert.deepEqual(await countRows(t.db), before);
      });

      test('a hostile CTA buttonHref → 400 naming /blocks/{index}/buttonHref', async () => {
        for (const href of hostile) {
          assertInvalidBody(
            await put('a', newArticle({ blocks: withButtonHref(href) })),
            '/blocks/1/buttonHref',
            href,
          );
        }
      });

      test('hostile links in nested runs (list items, quotes, callouts, faq answers) are refused too', async () => {
        const bad = 'javascript:alert(1)';
        const cases: [Block, string][] = [
          [
            { type: 'list', ordered: false, items: [[{ text: 'ok' }], [{ text: 'x', href: bad }]] },
            '/blocks/0/items/1/0/href',
          ],
          [{ type: 'quote', content: [{ text: 'x', href: bad }] }, '/blocks/0/content/0/href'],
          [
            { type: 'callout', variant: 'info', content: [{ text: 'x', href: bad }] },
            '/blocks/0/content/0/href',
          ],
          [
            { type: 'faq', items: [{ question: 'q', answer: [{ text: 'x', href: bad }] }] },
            '/blocks/0/items/0/answer/0/href',
          ],
        ];
        for (const [block, path] of cases) {
          assertInvalidBody(await put('a', newArticle({ blocks: [block] })), path, block.type);
        }
      });

      test('http(s) URLs, site paths and #anchors are accepted as links', async () => {
        const fine = [
          'https://example.com',
          'http://example.com/a?b=c#d',
          'HTTPS://EXAMPLE.COM/Path',
          '/',
          '/blog/other-post',
          '/search?q=a',
          '#',
          '#section-2',
        ];
        for (const [i, href] of fine.entries()) {
          const run = await put(`r${i}`, newArticle({ blocks: withRunHref(href) }));
          assert.equal(run.statusCode, 201, `${href}: ${run.body}`);
          const cta = await put(`c${i}`, newArticle({ blocks: withButtonHref(href) }));
          assert.equal(cta.statusCode, 201, `${href}: ${cta.body}`);
        }
      });

      test('seo.canonicalPath is refused with a details entry for /seo/canonicalPath', async () => {
        const response = await put('a', newArticle({ seo: { canonicalPath: '/blog/a' } as never }));
        assertInvalidBody(response, '/seo/canonicalPath');
        assert.equal((await countRows(t.db)).articles, 0);
      });

      test('seo fields other than canonicalPath are stored and served', async () => {
        const seo = {
          title: 'SEO title',
          description: 'SEO description',
          ogTitle: 'OG title',
          ogDescription: 'OG description',
          ogImage: 'https://cdn.example.com/og.png',
          ogType: 'website',
          jsonLd: { '@context': 'https://schema.org', '@type': 'Article', headline: 'x' },
        };
        const response = await put('a', newArticle({ slug: 'a', seo, published: true }));
        assert.equal(response.statusCode, 201, response.body);
        assert.deepEqual(response.json().data.seo, seo);
        assert.deepEqual((await bySlug('a')).json().data.seo, { ...seo, canonicalPath: '/blog/a' });
      });

      test('seo.ogImage must be an absolute http(s) URL or null', async () => {
        for (const [i, ogImage] of [
          'https://cdn.example.com/a.png',
          'http://cdn.example.com/a.png',
          null,
        ].entries()) {
          const response = await put(`ok${i}`, newArticle({ seo: { ogImage } }));
          assert.equal(response.statusCode, 201, `${ogImage}: ${response.body}`);
          assert.equal(response.json().data.seo.ogImage, ogImage);
        }
        const before = await countRows(t.db);
        for (const ogImage of [
          '/images/a.png',
          'images/a.png',
          'javascript:alert(1)',
          'data:image/png;base64,AAAA',
          '//cdn.example.com/a.png',
          'ftp://cdn.example.com/a.png',
          '',
        ]) {
          assertInvalidBody(await put('bad', newArticle({ seo: { ogImage } })), '/seo/ogImage', ogImage);
        }
        assertInvalidBody(
          await put('bad', newArticle({ seo: { ogImage: 5 as never } })),
          '/seo/ogImage',
          'number',
        );
        assert.deepEqual(await countRows(t.db), before);
      });
    });
  });
}
