import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { streamSitemap } from '../../services/delivery.ts';
import { findProject } from '../../store/projects.ts';
import { DIALECTS } from '../../test/databases.ts';
import { createTestApp, newArticle, paragraph, START_TIME, type TestApp } from '../../test/test-app.ts';

const HOUR = 3_600_000;
const LONG_TEXT =
  'Folio stores articles that are written elsewhere and serves the published ones to a website through an authenticated JSON API, and it tells the website when content changes.';

for (const dialect of DIALECTS) {
  describe(`delivery API: seo [${dialect}]`, () => {
    let t: TestApp;
    let key: string;
    beforeEach(async () => {
      t = await createTestApp(dialect);
    });
    afterEach(() => t.close());

    async function setUp(site: { websiteUrl?: string | null; articlesPath?: string }) {
      const project = await t.createProject(site);
      key = await t.createKey(project.id);
      return project.id;
    }
    const read = (projectId: string, slug: string) =>
      t.deliver(key, `/api/v1/projects/${projectId}/content/by-slug/${encodeURIComponent(slug)}`);

    test('defaults: title, first paragraph cut at a word boundary, og fields, first image, BlogPosting', async () => {
      const projectId = await setUp({ websiteUrl: 'https://www.example.com', articlesPath: '/blog' });
      await t.putArticle(projectId, 'a1', {
        slug: 'hello-world',
        title: 'Hello world',
        published: true,
        blocks: [
          { type: 'heading', level: 2, text: 'Intro' },
          {
            type: 'paragraph',
            content: [{ text: LONG_TEXT.slice(0, 60) }, { text: LONG_TEXT.slice(60), bold: true }],
          },
          { type: 'image', url: 'https://img.example.com/a.png', alt: 'A' },
          { type: 'image', url: 'https://img.example.com/b.png', alt: 'B' },
        ],
      });
      const { seo, publishedAt, updatedAt } = (await read(projectId, 'hello-world')).json().data;
      assert.ok(seo.description.length <= 160);
      assert.ok(LONG_TEXT.startsWith(seo.description));
      assert.equal(LONG_TEXT[seo.description.length], ' ', 'cut falls on a word boundary');
      assert.deepEqual(seo, {
        title: 'Hello world',
        description: seo.description,
        canonicalPath: '/blog/hello-world',
        ogTitle: 'Hello world',
        ogDescription: seo.description,
        ogImage: 'https://img.example.com/a.png',
        ogType: 'article',
        jsonLd: {
          '@context': 'https://schema.org',
          '@type': 'BlogPosting',
          headline: 'Hello world',
          description: seo.description,
          datePublished: publishedAt,
          dateModified: updatedAt,
          url: 'https://www.example.com/blog/hello-world',
          mainEntityOfPage: { '@type': 'WebPage', '@id': 'https://www.example.com/blog/hello-world' },
          image: 'https://img.example.com/a.png',
        },
      });
      assert.equal(publishedAt, new Date(START_TIME).toISOString());
    });

    test('a first image url that passes the link rule but is no URL gives a null ogImage', async () => {
      // The block schema's host part is looser than a URL parser; ogImage is an absolute URL
      // or null, as an ingested seo.ogImage of the same text is refused.
      const projectId = await setUp({ websiteUrl: 'https://www.example.com' });
      const blocks = [{ type: 'image' as const, url: 'https://a<b.example/c.png', alt: 'A' }];
      await t.putArticle(projectId, 'a', newArticle({ slug: 'odd-image', published: true, blocks }));
      const { seo } = (await read(projectId, 'odd-image')).json().data;
      assert.equal(seo.ogImage, null);
      assert.equal('image' in seo.jsonLd, false);
    });

    test('a short first paragraph is used whole; no paragraph and no image give "" and null', async () => {
      const projectId = await setUp({});
      await t.putArticle(
        projectId,
        'a',
        newArticle({ slug: 'short', published: true, blocks: [paragraph('  Short   text. ')] }),
      );
      await t.putArticle(projectId, 'b', newArticle({ slug: 'empty', published: true, blocks: [] }));
      assert.equal((await read(projectId, 'short')).json().data.seo.description, 'Short text.');
      const empty = (await read(projectId, 'empty')).json().data.seo;
      assert.equal(empty.description, '');
      assert.equal(empty.ogImage, null);
    });

    test('ingested seo is served as given; og fields default to the effective title and description', async () => {
      const projectId = await setUp({ websiteUrl: 'https://www.example.com' });
      const jsonLd = {
        '@context': 'https://schema.org',
        '@type': 'HowTo',
        name: 'Brew',
        step: [{ text: '</script><!--' }],
      };
      await t.putArticle(
        projectId,
        'a',
        newArticle({
          slug: 'custom',
          published: true,
          seo: { title: 'Custom title', description: 'Custom description', ogImage: null, jsonLd },
          blocks: [{ type: 'image', url: 'https://img.example.com/x.png', alt: 'x' }],
        }),
      );
      const seo = (await read(projectId, 'custom')).json().data.seo;
      assert.equal(seo.title, 'Custom title');
      assert.equal(seo.ogTitle, 'Custom title');
      assert.equal(seo.ogDescription, 'Custom description');
      assert.equal(seo.ogImage, null, 'an explicit null is kept');
      assert.deepEqual(seo.jsonLd, jsonLd);
      assert.equal(seo.canonicalPath, '/custom', 'empty articles path: articles at the site root');
    });

    test('without a website URL, jsonLd has no url and a site-path image cannot become ogImage', async () => {
      const projectId = await setUp({ articlesPath: 'news/' });
      await t.putArticle(
        projectId,
        'a',
        newArticle({ slug: 'x', published: true, blocks: [{ type: 'image', url: '/img/a.png', alt: '' }] }),
      );
      const seo = (await read(projectId, 'x')).json().data.seo;
      assert.equal(seo.canonicalPath, '/news/x');
      assert.equal(seo.ogImage, null);
      assert.equal(seo.jsonLd.url, undefined);
      await t.admin('PATCH', `/admin/v1/projects/${projectId}`, { websiteUrl: 'https://site.example/' });
      const after = (await read(projectId, 'x')).json().data.seo;
      assert.equal(after.ogImage, 'https://site.example/img/a.png');
      assert.equal(after.jsonLd.url, 'https://site.example/news/x');
    });
  });

  describe(`delivery API: sitemap [${dialect}]`, () => {
    let t: TestApp;
    beforeEach(async () => {
      t = await createTestApp(dialect);
    });
    afterEach(() => t.close());

    test('one entry per published article, newest first, on the website URL, with the real updatedAt', async () => {
      const project = await t.createProject({ websiteUrl: 'https://www.example.com', articlesPath: '/blog' });
      const key = await t.createKey(project.id);
      await t.putArticle(project.id, 'old', newArticle({ slug: 'old', published: true }));
      t.clock.advance(HOUR);
      await t.putArticle(project.id, 'new', newArticle({ slug: 'new-café', published: true }));
      await t.putArticle(project.id, 'draft', newArticle({ slug: 'draft' }));
      t.clock.advance(HOUR);
      await t.putArticle(project.id, 'old', newArticle({ slug: 'old', title: 'Edited', published: true }));

      const response = await t.deliver(key, `/api/v1/projects/${project.id}/content/sitemap`);
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), {
        success: true,
        data: [
          {
            url: 'https://www.example.com/blog/new-caf%C3%A9',
            lastModified: new Date(START_TIME + HOUR).toISOString(),
          },
          {
            url: 'https://www.example.com/blog/old',
            lastModified: new Date(START_TIME + 2 * HOUR).toISOString(),
          },
        ],
      });
    });

    test('batches meet without loss or repeat, in the delivery order, through ties and any slug', async () => {
      const project = await t.createProject({ websiteUrl: 'https://www.example.com' });
      const key = await t.createKey(project.id);
      const odd = ['a', 'ü-ñ', 'b.c', "d'e", 'f~g', '日本', 'h(i)', 'j', 'k,l', 'm"n', 'o\\p', '🦊'];
      const slugs = Array.from({ length: 40 }, (_, i) => `${odd[i % odd.length]}-${i}`);
      // Ids that sort apart from the order of insertion, and three articles per publication
      // time: batch edges fall inside ties, which only the id breaks.
      const ids = slugs.map((_, i) => `id${(i * 7) % 40}`);
      for (const [i, slug] of slugs.entries()) {
        if (i % 3 === 0) t.clock.advance(HOUR);
        await t.putArticle(project.id, ids[i]!, newArticle({ slug, published: true }));
      }
      await t.putArticle(project.id, 'draft', newArticle({ slug: 'draft' }));
      const row = (await findProject(t.db, project.id))!;
      const read = async (size: number) => {
        let text = '';
        for await (const chunk of streamSitemap({ db: t.db, now: t.clock.now }, row, size)) text += chunk;
        return JSON.parse(text) as Array<{ url: string }>;
      };
      const whole = await read(1000);
      const listed = (await t.deliver(key, `/api/v1/projects/${project.id}/content?limit=100`)).json().data;
      assert.equal(listed.length, slugs.length);
      assert.deepEqual(
        whole.map((entry) => decodeURIComponent(new URL(entry.url).pathname.split('/').pop()!)),
        listed.map((article: { slug: string }) => article.slug),
      );
      for (const size of [1, 2, 3, 7, 39, 40])
        assert.deepEqual(await read(size), whole, `batches of ${size}`);
    });

    test('no website URL answers 409 conflict', async () => {
      const project = await t.createProject({ websiteUrl: null });
      const key = await t.createKey(project.id);
      const response = await t.deliver(key, `/api/v1/projects/${project.id}/content/sitemap`);
      assert.equal(response.statusCode, 409);
      assert.equal(response.json().error.code, 'conflict');
      assert.match(response.json().error.message, /website URL/);
    });
  });

  describe(`delivery API: conditional requests and headers [${dialect}]`, () => {
    let t: TestApp;
    let projectId: string;
    let key: string;
    beforeEach(async () => {
      t = await createTestApp(dialect);
      projectId = (await t.createProject({ websiteUrl: 'https://www.example.com' })).id;
      key = await t.createKey(projectId);
      await t.putArticle(projectId, 'a', newArticle({ slug: 'a', published: true }));
    });
    afterEach(() => t.close());

    test('every delivery GET has a strong ETag; a match answers 304 with no body; a change gives a new tag', async () => {
      for (const path of ['content', 'content/by-slug/a', 'content/sitemap']) {
        const url = `/api/v1/projects/${projectId}/content`.replace(/content$/, path);
        const first = await t.deliver(key, url);
        const etag = first.headers.etag as string;
        assert.match(etag, /^"[^"]+"$/, `${path}: strong ETag`);
        for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
          const again = await t.deliver(key, url, { 'if-none-match': header });
          assert.equal(again.statusCode, 304, `${path} with ${header}`);
          assert.equal(again.body, '');
        }
        assert.equal((await t.deliver(key, url, { 'if-none-match': '"stale"' })).statusCode, 200);
      }
      const url = `/api/v1/projects/${projectId}/content`;
      const before = (await t.deliver(key, url)).headers.etag;
      await t.putArticle(projectId, 'a', newArticle({ slug: 'a', title: 'Changed', published: true }));
      const after = await t.deliver(key, url, { 'if-none-match': before as string });
      assert.equal(after.statusCode, 200);
      assert.notEqual(after.headers.etag, before);
    });

    test('the delivery API sends no CORS headers: browser code must not hold a key', async () => {
      const response = await t.deliver(key, `/api/v1/projects/${projectId}/content`, {
        origin: 'https://www.example.com',
      });
      assert.equal(response.headers['access-control-allow-origin'], undefined);
      const preflight = await t.app.inject({
        method: 'OPTIONS',
        url: `/api/v1/projects/${projectId}/content`,
        headers: { origin: 'https://www.example.com', 'access-control-request-method': 'GET' },
      });
      assert.equal(preflight.headers['access-control-allow-origin'], undefined);
    });

    test('an unpublished article stops being served in the list, by slug and in the sitemap', async () => {
      await t.admin('POST', `/admin/v1/projects/${projectId}/articles/a/unpublish`);
      const base = `/api/v1/projects/${projectId}/content`;
      assert.equal((await t.deliver(key, base)).json().pagination.total, 0);
      assert.equal((await t.deliver(key, `${base}/by-slug/a`)).statusCode, 404);
      assert.deepEqual((await t.deliver(key, `${base}/sitemap`)).json().data, []);
    });
  });
}
