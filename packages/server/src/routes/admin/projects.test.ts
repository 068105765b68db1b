import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { sql } from 'kysely';
import { importArticles } from '../../services/article-transfer.ts';
import { updateProject } from '../../services/projects.ts';
import { assertError, assertInvalidBody, countRows, listEvents } from '../../test/assertions.ts';
import { captureLogs } from '../../test/captured-logs.ts';
import { DIALECTS } from '../../test/databases.ts';
import {
  ADMIN_TOKEN,
  buildSecondApp,
  createTestApp,
  newArticle,
  START_TIME,
  type TestApp,
} from '../../test/test-app.ts';

const PROJECTS = '/admin/v1/projects';

const FINISHED_REWRITE = 'finished rewriting articles for new site settings';

for (const dialect of DIALECTS) {
  describe(`management API: projects [${dialect}]`, () => {
    let t: TestApp;
    beforeEach(async () => {
      t = await createTestApp(dialect);
    });
    afterEach(() => t.close());

    /** `count` articles imported at once, `s-<id>` each, every third one unpublished; their ids. */
    async function importMany(projectId: string, count: number): Promise<string[]> {
      const ids = Array.from({ length: count }, (_, i) => `a${String(i).padStart(4, '0')}`);
      const items = ids.map((id, i) => ({
        line: i + 1,
        id,
        input: newArticle({ slug: `s-${id}`, published: i % 3 !== 0 }),
      }));
      await importArticles({ db: t.db, now: t.clock.now }, projectId, items, { atomic: true });
      return ids;
    }

    test('POST creates a project: 201 with id, name, websiteUrl, articlesPath, previewUrl and createdAt', async () => {
      t.clock.advance(1_234);
      const response = await t.admin('POST', PROJECTS, {
        name: 'My blog',
        websiteUrl: 'https://www.example.com',
        articlesPath: '/blog',
      });
      assert.equal(response.statusCode, 201, response.body);
      const body = response.json();
      assert.equal(body.success, true);
      assert.deepEqual(Object.keys(body.data).sort(), [
        'articlesPath',
        'createdAt',
        'id',
        'name',
        'previewUrl',
        'websiteUrl',
      ]);
      assert.equal(body.data.previewUrl, null);
      assert.equal(typeof body.data.id, 'string');
      assert.ok(body.data.id.length > 0);
      assert.equal(body.data.name, 'My blog');
      assert.equal(body.data.websiteUrl, 'https://www.example.com');
      assert.equal(body.data.articlesPath, '/blog');
      assert.equal(body.data.createdAt, '2026-11-20T10:00:01.234Z');
      assert.equal(body.data.createdAt, new Date(START_TIME + 1_234).toISOString());
    });

    test('POST with only a name: websiteUrl null and articlesPath empty', async () => {
      const response = await t.admin('POST', PROJECTS, { name: 'Bare' });
      assert.equal(response.statusCode, 201);
      assert.equal(response.json().data.websiteUrl, null);
      assert.equal(response.json().data.articlesPath, '');
    });

    test('POST without a name, or with an empty name, answers 400 and creates nothing', async () => {
      for (const body of [{}, { name: '' }, { websiteUrl: 'https://www.example.com' }]) {
        assertInvalidBody(await t.admin('POST', PROJECTS, body), '/name', JSON.stringify(body));
      }
      assert.equal((await countRows(t.db)).projects, 0);
    });

    test('every project gets its own id', async () => {
      const a = await t.createProject({ name: 'A' });
      const b = await t.createProject({ name: 'A' });
      assert.notEqual(a.id, b.id);
    });

    test('GET /projects lists every project, oldest first, with the pagination object', async () => {
      const empty = await t.admin('GET', PROJECTS);
      assert.equal(empty.statusCode, 200);
      assert.deepEqual(empty.json(), {
        success: true,
        data: [],
        pagination: { page: 1, limit: 100, total: 0, totalPages: 0, hasNext: false, hasPrev: false },
      });
      const a = await t.createProject({ name: 'A' });
      t.clock.advance(1000);
      const b = await t.createProject({ name: 'B', websiteUrl: 'https://b.example', articlesPath: '/news' });
      const response = await t.admin('GET', PROJECTS);
      assert.equal(response.statusCode, 200);
      const list = response.json().data as unknown[];
      assert.equal(list.length, 2);
      const byId = new Map(list.map((p) => [(p as { id: string }).id, p]));
      assert.deepEqual(byId.get(a.id), a);
      assert.deepEqual(byId.get(b.id), b);
      const second = (await t.admin('GET', `${PROJECTS}?page=2&limit=1`)).json();
      assert.deepEqual(
        [
          second.data.map((p: { id: string }) => p.id),
          second.pagination.totalPages,
          second.pagination.hasPrev,
        ],
        [[b.id], 2, true],
      );
    });

    test('GET /projects/{id} answers the project; an unknown id answers 404 not_found', async () => {
      const project = await t.createProject({ name: 'One', websiteUrl: 'https://one.example' });
      const response = await t.admin('GET', `${PROJECTS}/${project.id}`);
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { success: true, data: project });
      assertError(await t.admin('GET', `${PROJECTS}/prj_unknown`), 404, 'not_found');
    });

    test('PATCH changes name, websiteUrl and articlesPath, one at a time and together', async () => {
      const project = await t.createProject({ name: 'Old' });
      const url = `${PROJECTS}/${project.id}`;

      let response = await t.admin('PATCH', url, { name: 'New' });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json().data, { ...project, name: 'New' });

      response = await t.admin('PATCH', url, { websiteUrl: 'https://www.example.com/' });
      assert.equal(response.statusCode, 200);
      assert.equal(response.json().data.websiteUrl, 'https://www.example.com');
      assert.equal(response.json().data.name, 'New');

      response = await t.admin('PATCH', url, { articlesPath: 'blog/' });
      assert.equal(response.statusCode, 200);
      assert.equal(response.json().data.articlesPath, '/blog');

      response = await t.admin('PATCH', url, { name: 'Both', websiteUrl: null, articlesPath: '' });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json().data, {
        ...project,
        name: 'Both',
        websiteUrl: null,
        articlesPath: '',
      });

      // The change is stored, not only answered.
      assert.deepEqual((await t.admin('GET', url)).json().data, response.json().data);
      assert.equal((await t.admin('PATCH', url, {})).statusCode, 200);
      assert.deepEqual((await t.admin('GET', url)).json().data, response.json().data);
    });

    test('PATCH of an unknown project answers 404; a bad PATCH changes nothing', async () => {
      assertError(await t.admin('PATCH', `${PROJECTS}/prj_unknown`, { name: 'x' }), 404, 'not_found');
      const project = await t.createProject({ name: 'Keep', websiteUrl: 'https://keep.example' });
      const url = `${PROJECTS}/${project.id}`;
      assertInvalidBody(
        await t.admin('PATCH', url, { name: 'Changed', websiteUrl: 'ftp://x.example' }),
        '/websiteUrl',
      );
      assertInvalidBody(await t.admin('PATCH', url, { name: '' }), '/name');
      assertInvalidBody(await t.admin('PATCH', url, { nmae: 'typo' }), '/nmae');
      assert.deepEqual((await t.admin('GET', url)).json().data, project);
    });

    test('websiteUrl: an origin is kept, a trailing slash dropped, a default port removed', async () => {
      const cases: Record<string, string> = {
        'https://www.example.com': 'https://www.example.com',
        'https://www.example.com/': 'https://www.example.com',
        'http://localhost:3000/': 'http://localhost:3000',
        'https://WWW.Example.COM': 'https://www.example.com',
        'https://www.example.com:443': 'https://www.example.com',
      };
      for (const [input, expected] of Object.entries(cases)) {
        const response = await t.admin('POST', PROJECTS, { name: 'p', websiteUrl: input });
        assert.equal(response.statusCode, 201, `${input}: ${response.body}`);
        assert.equal(response.json().data.websiteUrl, expected, input);
      }
    });

    test('websiteUrl with a path, query, fragment, credentials, another scheme or garbage answers 400', async () => {
      for (const websiteUrl of [
        'https://www.example.com/blog',
        'https://www.example.com/blog/',
        'https://www.example.com/?page=1',
        'https://www.example.com/#top',
        'https://user:secret@www.example.com',
        'https://user@www.example.com',
        'ftp://www.example.com',
        'javascript:alert(1)',
        'file:///etc/passwd',
        'www.example.com',
        'not a url',
        '//www.example.com',
        'http://',
      ]) {
        assertInvalidBody(
          await t.admin('POST', PROJECTS, { name: 'p', websiteUrl }),
          '/websiteUrl',
          websiteUrl,
        );
      }
      assert.equal((await countRows(t.db)).projects, 0);
    });

    test('websiteUrl must be a string or null (no coercion)', async () => {
      for (const websiteUrl of [42, true, ['https://www.example.com'], { href: 'https://www.example.com' }]) {
        assertInvalidBody(await t.admin('POST', PROJECTS, { name: 'p', websiteUrl }), '/websiteUrl');
      }
    });

    test('articlesPath is normalized to a leading slash, no trailing slash, no empty segments', async () => {
      const cases: Record<string, string> = {
        blog: '/blog',
        '/blog': '/blog',
        '/blog/': '/blog',
        'blog/': '/blog',
        '/': '',
        '': '',
        '//': '',
        '/a//b/': '/a/b',
        'a/b/c': '/a/b/c',
        '/en-us/news_2026': '/en-us/news_2026',
      };
      for (const [input, expected] of Object.entries(cases)) {
        const response = await t.admin('POST', PROJECTS, { name: 'p', articlesPath: input });
        assert.equal(response.statusCode, 201, `${JSON.stringify(input)}: ${response.body}`);
        assert.equal(response.json().data.articlesPath, expected, JSON.stringify(input));
      }
    });

    test('an articlesPath that is a whole URL answers 400 naming websiteUrl', async () => {
      // Each segment of `https://www.example.com/blog` is a legal path segment: collapsed, it was
      // taken as the path `/https:/www.example.com/blog`.
      for (const articlesPath of [
        'https://www.example.com/blog',
        'http://example.com',
        'HTTPS://x.example',
      ]) {
        const response = await t.admin('POST', PROJECTS, { name: 'p', articlesPath });
        assertInvalidBody(response, '/articlesPath', articlesPath);
        assert.match(response.json().error.message, /websiteUrl/, articlesPath);
      }
      // A colon is a path character: a segment such as `news:2026` is still a path.
      const kept = await t.admin('POST', PROJECTS, { name: 'p', articlesPath: '/news:2026' });
      assert.equal(kept.json().data.articlesPath, '/news:2026', kept.body);
    });

    test('articlesPath with dot segments or characters not allowed in a path answers 400', async () => {
      for (const articlesPath of [
        '..',
        '/..',
        '/blog/..',
        '/./blog',
        '/blog?x=1',
        '/blog#top',
        '/my blog',
        '/a\\b',
      ]) {
        assertInvalidBody(
          await t.admin('POST', PROJECTS, { name: 'p', articlesPath }),
          '/articlesPath',
          JSON.stringify(articlesPath),
        );
      }
      const project = await t.createProject({ articlesPath: '/blog' });
      assertInvalidBody(
        await t.admin('PATCH', `${PROJECTS}/${project.id}`, { articlesPath: '../x' }),
        '/articlesPath',
      );
      assert.equal((await t.admin('GET', `${PROJECTS}/${project.id}`)).json().data.articlesPath, '/blog');
    });

    test('GETs carry a strong ETag; a matching If-None-Match answers 304; a change gives a new tag', async () => {
      const project = await t.createProject({ name: 'Tagged' });
      const url = `${PROJECTS}/${project.id}`;
      for (const path of [PROJECTS, url]) {
        const first = await t.admin('GET', path);
        const etag = first.headers.etag as string;
        assert.match(etag, /^"[^"]+"$/, `${path}: a strong ETag`);
        const again = await t.app.inject({
          method: 'GET',
          url: path,
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'if-none-match': etag },
        });
        assert.equal(again.statusCode, 304, path);
        assert.equal(again.body, '', path);
      }
      const before = (await t.admin('GET', url)).headers.etag;
      await t.admin('PATCH', url, { name: 'Renamed' });
      const after = await t.app.inject({
        method: 'GET',
        url,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'if-none-match': String(before) },
      });
      assert.equal(after.statusCode, 200);
      assert.equal(after.json().data.name, 'Renamed');
      assert.notEqual(after.headers.etag, before);
    });

    test('a PATCH that moves the articles sends content.updated for each published article, once', async () => {
      const project = (
        await t.admin('POST', PROJECTS, { name: 'Site', websiteUrl: 'https://a.example' })
      ).json().data;
      await t.putArticle(project.id, 'p1', newArticle({ slug: 'one', published: true }));
      await t.putArticle(project.id, 'p2', newArticle({ slug: 'two', published: true }));
      await t.putArticle(project.id, 'd1', newArticle({ slug: 'draft' }));
      const updates = async () =>
        (await listEvents(t.db))
          .filter((event) => event.type === 'content.updated')
          .map((event) => event.payload.data)
          .sort((a, b) => String(a.id).localeCompare(String(b.id)));

      await t.admin('PATCH', `${PROJECTS}/${project.id}`, { name: 'Renamed' });
      await t.admin('PATCH', `${PROJECTS}/${project.id}`, { articlesPath: '' });
      assert.deepEqual(await updates(), [], 'nothing served changed');

      await t.admin('PATCH', `${PROJECTS}/${project.id}`, { articlesPath: '/news' });
      const moved = [
        { id: 'p1', slug: 'one' },
        { id: 'p2', slug: 'two' },
      ];
      assert.deepEqual(await updates(), moved);
      await t.admin('PATCH', `${PROJECTS}/${project.id}`, { websiteUrl: 'https://b.example' });
      assert.deepEqual(
        await updates(),
        [...moved, ...moved].sort((a, b) => a.id.localeCompare(b.id)),
      );
    });

    test('a PATCH moves more articles than one statement holds, with a delivery for each published one', async () => {
      const project = await t.createProject({ websiteUrl: 'https://a.example' });
      const key = await t.createKey(project.id);
      await t.admin('PUT', `${PROJECTS}/${project.id}/webhook`, { url: 'https://hooks.example.com/folio' });
      // Every third one unpublished: its served JSON moves too, but no event reports it.
      const ids = await importMany(project.id, 1203);
      const deliveries = async () =>
        Number(
          (
            await t.db
              .selectFrom('webhook_deliveries')
              .select(t.db.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = await deliveries();
      assert.equal(
        (await t.admin('PATCH', `${PROJECTS}/${project.id}`, { articlesPath: '/news' })).statusCode,
        200,
      );

      const published = ids.filter((_, i) => i % 3 !== 0);
      const reported = (await listEvents(t.db))
        .filter((event) => event.type === 'content.updated')
        .map((event) => event.payload.data.id as string);
      assert.deepEqual(reported.sort(), published);
      assert.equal((await deliveries()) - before, published.length);
      const list = await t.deliver(key, `/api/v1/projects/${project.id}/content?limit=100&page=8`);
      for (const article of list.json().data) {
        assert.equal(article.seo.canonicalPath, `/news/${article.slug}`);
      }
      const preview = await t.createKey(project.id, 'preview');
      const unpublished = await t.deliver(preview, `/api/v1/projects/${project.id}/content/by-slug/s-a1200`);
      assert.equal(unpublished.json().data.seo.canonicalPath, '/news/s-a1200');
    });

    test('a failing check for unfinished rewrites says that the check failed, not a rewrite', async () => {
      // The check's query fails, as it would with the database gone; no rewrite is pending.
      await sql`alter table projects rename column rewrite_after to rewrite_gone`.execute(t.db);
      const logs = captureLogs();
      const second = await buildSecondApp(t, false, logs.logger);
      try {
        for (let waited = 0; logs.lines.every((line) => line.level < 40); waited += 20) {
          assert.ok(waited < 10_000, 'the check is made at start');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } finally {
        await second.close();
        await sql`alter table projects rename column rewrite_gone to rewrite_after`.execute(t.db);
      }
      assert.deepEqual(
        logs.lines.filter((line) => line.level >= 40).map((line) => line.msg),
        ['checking for unfinished rewrites of articles for new site settings failed; it is retried'],
      );
    });

    test('a PATCH rewrites a batch per transaction; one cut short is finished by the next server', async () => {
      const project = await t.createProject({ websiteUrl: 'https://a.example' });
      const count = 1010;
      const ids = await importMany(project.id, count);
      const paths = async () =>
        (await t.db.selectFrom('articles').select(['id', 'served']).orderBy('id').execute()).map(
          (row) => JSON.parse(row.served!).seo.canonicalPath as string,
        );
      const pending = async () =>
        (
          await t.db
            .selectFrom('projects')
            .select('rewrite_after')
            .where('id', '=', project.id)
            .executeTakeFirstOrThrow()
        ).rewrite_after;

      // The process stops right after the first commit: the settings and 500 articles are in.
      let commits = 0;
      const crash = new Error('the process stopped');
      const stopping = {
        db: t.db,
        now: t.clock.now,
        onCommit: () => {
          commits++;
          throw crash;
        },
      };
      await assert.rejects(updateProject(stopping, project.id, { articlesPath: '/news' }), crash);
      assert.equal(commits, 1);
      assert.equal((await t.admin('GET', `${PROJECTS}/${project.id}`)).json().data.articlesPath, '/news');
      assert.equal(await pending(), ids[499]);
      const halfway = await paths();
      assert.equal(halfway.filter((path) => path.startsWith('/news/')).length, 500);

      // Another server starts and finishes the rewrite, from where it stopped, and says so.
      const logs = captureLogs();
      const second = await buildSecondApp(t, false, logs.logger);
      const finished = () => logs.lines.filter((line) => line.msg === FINISHED_REWRITE);
      try {
        for (let waited = 0; finished().length === 0; waited += 20) {
          assert.ok(waited < 10_000, 'the rewrite is finished');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } finally {
        await second.close();
      }
      assert.equal(await pending(), null);
      assert.deepEqual(
        finished().map(({ level, projectId, articles }) => ({ level, projectId, articles })),
        [{ level: 30, projectId: project.id, articles: count - 500 }],
      );
      assert.deepEqual(
        await paths(),
        ids.map((id) => `/news/s-${id}`),
      );
      // Each published article reported once; every article numbered once, none twice.
      const reported = (await listEvents(t.db))
        .filter((event) => event.type === 'content.updated')
        .map((event) => event.payload.data.id as string);
      assert.deepEqual(
        reported.sort(),
        ids.filter((_, i) => i % 3 !== 0),
      );
      const numbers = await t.db.selectFrom('articles').select('preview_seq').execute();
      assert.equal(new Set(numbers.map((row) => Number(row.preview_seq))).size, count);

      // Uninterrupted, the same PATCH commits once per batch of 500, and answers once all are in.
      commits = 0;
      const counting = { db: t.db, now: t.clock.now, onCommit: () => void commits++ };
      await updateProject(counting, project.id, { articlesPath: '/blog' });
      assert.equal(commits, 3);
      assert.equal(await pending(), null);
      assert.deepEqual(
        await paths(),
        ids.map((id) => `/blog/s-${id}`),
      );
    });

    test('canonicalPath, related links and sitemap URLs follow a PATCH of articlesPath and websiteUrl', async () => {
      const project = await t.createProject({ websiteUrl: 'https://www.example.com', articlesPath: '/blog' });
      const key = await t.createKey(project.id);
      await t.putArticle(project.id, 'a', newArticle({ slug: 'first-post', published: true }));
      t.clock.advance(1000);
      await t.putArticle(
        project.id,
        'b',
        newArticle({ slug: 'second', published: true, related: ['first-post'] }),
      );
      const content = `/api/v1/projects/${project.id}/content`;

      const read = async () => {
        const article = (await t.deliver(key, `${content}/by-slug/second`)).json().data;
        const list = (await t.deliver(key, content)).json().data;
        const sitemap = await t.deliver(key, `${content}/sitemap`);
        return { article, list, sitemap };
      };

      let seen = await read();
      assert.equal(seen.article.seo.canonicalPath, '/blog/second');
      assert.equal(seen.article.related[0].canonicalPath, '/blog/first-post');
      assert.equal(seen.article.seo.jsonLd.url, 'https://www.example.com/blog/second');
      assert.deepEqual(
        seen.sitemap.json().data.map((entry: { url: string }) => entry.url),
        ['https://www.example.com/blog/second', 'https://www.example.com/blog/first-post'],
      );

      const patched = await t.admin('PATCH', `${PROJECTS}/${project.id}`, {
        websiteUrl: 'https://news.example.org/',
        articlesPath: 'en/articles/',
      });
      assert.equal(patched.statusCode, 200);
      seen = await read();
      assert.equal(seen.article.seo.canonicalPath, '/en/articles/second');
      assert.equal(seen.article.related[0].canonicalPath, '/en/articles/first-post');
      assert.equal(seen.article.seo.jsonLd.url, 'https://news.example.org/en/articles/second');
      assert.deepEqual(
        seen.list.map((item: { seo: { canonicalPath: string } }) => item.seo.canonicalPath),
        ['/en/articles/second', '/en/articles/first-post'],
      );
      assert.deepEqual(
        seen.sitemap.json().data.map((entry: { url: string }) => entry.url),
        ['https://news.example.org/en/articles/second', 'https://news.example.org/en/articles/first-post'],
      );

      await t.admin('PATCH', `${PROJECTS}/${project.id}`, { articlesPath: '/' });
      seen = await read();
      assert.equal(seen.article.seo.canonicalPath, '/second');
      assert.equal(seen.sitemap.json().data[0].url, 'https://news.example.org/second');

      await t.admin('PATCH', `${PROJECTS}/${project.id}`, { websiteUrl: null });
      seen = await read();
      assertError(seen.sitemap, 409, 'conflict');
      assert.equal(seen.article.seo.jsonLd.url, undefined);
    });
  });
}
