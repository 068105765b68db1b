import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  createTestApp,
  newArticle,
  paragraph,
  type TestApp,
} from '../../../packages/server/src/test/test-app.ts';
import { createSite } from './site.ts';

// Seed: "Articles live under (path) | Every canonical URL and every link between articles is
// built on this path. When empty, articles live at the site root." The site must follow every
// link Folio gives it, whatever the project's setting.
const SETTINGS = [
  { name: 'the default (none given)', fields: {}, prefix: '' },
  { name: '"" (the site root)', fields: { articlesPath: '' }, prefix: '' },
  { name: '/news', fields: { articlesPath: '/news' }, prefix: '/news' },
  { name: '/blog (the example and the demo)', fields: { articlesPath: '/blog' }, prefix: '/blog' },
  { name: '/a/b', fields: { articlesPath: '/a/b' }, prefix: '/a/b' },
];
const CAFE = 'caf\u00e9-notes';

interface Answer {
  status: number;
  location: string | null;
  type: string | null;
  headers: Headers;
  body: string;
}

async function startSite(
  t: TestApp,
  folioUrl: string,
  fields: { articlesPath?: string; websiteUrl?: string | null },
  options: Parameters<typeof createSite>[1] = {},
) {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const project = await t.createProject({ websiteUrl: origin, ...fields });
  const site = createSite(
    {
      folioUrl,
      projectId: project.id,
      contentKey: await t.createKey(project.id),
      webhookSecret: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0',
      origin,
      port: 0,
      host: '127.0.0.1',
      siteName: 'Test blog',
    },
    options,
  );
  server.on('request', (request, response) => void site.handle(request, response));
  const get = async (path: string, init: RequestInit = {}): Promise<Answer> => {
    const response = await fetch(`${origin}${path}`, { redirect: 'manual', ...init });
    return {
      status: response.status,
      location: response.headers.get('location'),
      type: response.headers.get('content-type'),
      headers: response.headers,
      body: await response.text(),
    };
  };
  /** A request line sent as written: fetch would resolve `/./` and `//` before sending. */
  const raw = (path: string) =>
    new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
      const port = (server.address() as AddressInfo).port;
      http
        .get({ host: '127.0.0.1', port, path }, (response) => {
          response.resume();
          resolve({ status: response.statusCode!, location: response.headers.location });
        })
        .on('error', reject);
    });
  const close = () => new Promise((resolve) => server.close(resolve));
  return { project, origin, get, raw, close };
}

const canonicalOf = (body: string) => /<link rel="canonical" href="([^"]+)">/.exec(body)?.[1];
const h1Of = (body: string) => /<h1>([^<]*)<\/h1>/.exec(body)?.[1];

describe('example site: article URLs follow the project’s "Articles live under"', () => {
  let t: TestApp;
  let folioUrl: string;

  before(async () => {
    t = await createTestApp('sqlite', { clockStart: Date.now() });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    folioUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  after(() => t?.close());

  for (const { name, fields, prefix } of SETTINGS) {
    describe(`articles path ${name}`, () => {
      let s: Awaited<ReturnType<typeof startSite>>;

      before(async () => {
        s = await startSite(t, folioUrl, fields);
        const put = (id: string, slug: string, extra = {}) =>
          t.putArticle(
            s.project.id,
            id,
            newArticle({ slug, title: `Title of ${slug}`, published: true, ...extra }),
          );
        await put('first', 'first-post');
        await put('cafe', CAFE);
        // Slugs equal to the site's own routes: at the site root the routes win.
        await put('sitemap', 'sitemap.xml');
        await put('blog', 'blog');
        await put('linked', 'linked-post', { related: ['first-post', CAFE] });
        await t.putArticle(s.project.id, 'draft', newArticle({ slug: 'draft-post' }));
      });
      after(() => s?.close());

      test('every link on the list page opens its article, with that URL as canonical', async () => {
        const list = await s.get('/blog');
        assert.equal(list.status, 200);
        const links = [...list.body.matchAll(/<h2><a href="([^"]+)">Title of ([^<]+)<\/a><\/h2>/g)];
        assert.equal(links.length, 5);
        for (const [, href, slug] of links) {
          assert.equal(href, `${prefix}/${encodeURIComponent(slug!)}`, `the link to ${slug}`);
          if (prefix === '' && (slug === 'blog' || slug === 'sitemap.xml')) continue;
          const page = await s.get(href!);
          assert.equal(page.status, 200, `${href} answered ${page.status}`);
          assert.equal(h1Of(page.body), `Title of ${slug}`);
          assert.equal(canonicalOf(page.body), `${s.origin}${href}`);
        }
      });

      test('a slug that needs encoding is served at its percent-encoded canonical path', async () => {
        const path = `${prefix}/caf%C3%A9-notes`;
        const page = await s.get(path);
        assert.equal(page.status, 200);
        assert.equal(h1Of(page.body), `Title of ${CAFE}`);
        assert.equal(canonicalOf(page.body), `${s.origin}${path}`);
        // Another spelling of the same path would be a second URL for the article.
        assert.equal((await s.get(`${prefix}/caf%c3%a9-notes`)).status, 404);
      });

      test('related links lead to their articles', async () => {
        const page = await s.get(`${prefix}/linked-post`);
        assert.equal(page.status, 200);
        const related = [...page.body.matchAll(/<li><a href="([^"]+)">Title of [^<]+<\/a><\/li>/g)];
        assert.deepEqual(
          related.map((match) => match[1]),
          [`${prefix}/first-post`, `${prefix}/caf%C3%A9-notes`],
        );
        for (const [, href] of related) assert.equal((await s.get(href!)).status, 200, href);
      });

      test('every sitemap URL leads to its article', async () => {
        const sitemap = await s.get('/sitemap.xml');
        assert.equal(sitemap.status, 200);
        assert.match(sitemap.type ?? '', /^application\/xml/);
        const locs = [...sitemap.body.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]!);
        assert.equal(locs.length, 5);
        for (const loc of locs) {
          const path = loc.slice(s.origin.length);
          assert.ok(loc.startsWith(`${s.origin}${prefix}/`), loc);
          if (prefix === '' && (path === '/blog' || path === '/sitemap.xml')) continue;
          assert.equal((await s.get(path)).status, 200, loc);
        }
      });

      test('an article is reachable at its canonical path only', async () => {
        const elsewhere = prefix === '/news' ? '/blog' : '/news';
        for (const path of [
          `${elsewhere}/first-post`,
          `/x${prefix}/first-post`,
          ...(prefix === ''
            ? []
            : ['/first-post', `${prefix.split('/').slice(0, 2).join('/')}/x/first-post`]),
          `${prefix}/draft-post`,
          `${prefix}/no-such-post`,
          `${prefix}/%E0%A4%A`,
          `${prefix}/first-post%2F`,
        ]) {
          const page = await s.get(path);
          assert.equal(page.status, 404, path);
          assert.equal(h1Of(page.body), 'Not found', path);
        }
      });

      test('a trailing slash redirects to the URL without it', async () => {
        for (const [path, location] of [
          [`${prefix}/first-post/`, `${prefix}/first-post`],
          [`${prefix}/first-post//`, `${prefix}/first-post`],
          ['/blog/?page=1', '/blog?page=1'],
        ]) {
          const answer = await s.get(path!);
          assert.equal(answer.status, 301, path);
          assert.equal(answer.location, location, path);
        }
        // `/.//evil.example/` is the path `//evil.example/`: never a Location to another host.
        assert.deepEqual(await s.raw('/.//evil.example/'), { status: 301, location: '/evil.example' });
      });

      test("the site's own routes come first", async () => {
        const list = await s.get('/blog');
        assert.match(list.body, /<h1>Blog<\/h1>/);
        const sitemap = await s.get('/sitemap.xml');
        assert.match(sitemap.body, /^<\?xml/);
        const robots = await s.get('/robots.txt');
        assert.match(robots.type ?? '', /^text\/plain/);
        const css = await s.get('/assets/site.css');
        assert.match(css.type ?? '', /^text\/css/);
        const home = await s.get('/');
        assert.deepEqual([home.status, home.location], [301, '/blog']);
        // Unsigned, so refused by the receiver rather than taken for a page.
        const hook = await s.get('/webhooks/folio', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        assert.equal(hook.status, 401);
      });
    });
  }

  test('the page cache keeps only the newest pages, so made-up addresses cannot grow it', async () => {
    const s = await startSite(t, folioUrl, { articlesPath: '/news' }, { maxCachedPages: 2 });
    try {
      for (const slug of ['one', 'two', 'three']) assert.equal((await s.get(`/news/${slug}`)).status, 404);
      // Published without a webhook to purge the cache: only a page that was evicted is rendered again.
      for (const slug of ['one', 'three']) {
        await t.putArticle(s.project.id, slug, newArticle({ slug, published: true }));
      }
      assert.equal((await s.get('/news/one')).status, 200, 'the oldest page was evicted');
      assert.equal((await s.get('/news/three')).status, 404, 'a recent page is still cached');
    } finally {
      await s.close();
    }
  });
});

describe('example site: a sitemap while the project has no Website URL', () => {
  test('is built on the site’s own origin instead of failing', async () => {
    const t = await createTestApp('sqlite', { clockStart: Date.now() });
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const folioUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      const s = await startSite(t, folioUrl, { articlesPath: '/blog', websiteUrl: null });
      try {
        await t.putArticle(s.project.id, 'one', newArticle({ slug: 'one', published: true }));
        await t.putArticle(s.project.id, 'two', newArticle({ slug: 'two' }));
        const sitemap = await s.get('/sitemap.xml');
        assert.equal(sitemap.status, 200);
        const locs = [...sitemap.body.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]);
        assert.deepEqual(locs, [`${s.origin}/blog/one`]);
        assert.match(sitemap.body, /<lastmod>\d{4}-\d\d-\d\dT/);
      } finally {
        await s.close();
      }
    } finally {
      await t.close();
    }
  });
});

describe('example site: titles, icon, excerpts and images', () => {
  let t: TestApp;
  let s: Awaited<ReturnType<typeof startSite>>;
  // Longer than Folio's 160-character description, with no sentence end before the cut.
  const LONG_FIRST_PARAGRAPH =
    'Every image on this page declares its width and height, so the browser can hold a box of the right shape while the file travels, and the words below it stay where they are when it arrives.';

  before(async () => {
    t = await createTestApp('sqlite', { clockStart: Date.now() });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    s = await startSite(t, `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`, {
      articlesPath: '/blog',
    });
    await t.putArticle(
      s.project.id,
      'pictures',
      newArticle({
        slug: 'pictures',
        title: 'Pictures & <words>',
        published: true,
        blocks: [
          paragraph(LONG_FIRST_PARAGRAPH),
          { type: 'image', url: '/images/first.png', alt: 'First', width: 1200, height: 800 },
          { type: 'image', url: '/images/second.png', alt: 'Second', width: 640, height: 480 },
        ],
      }),
    );
  });
  after(async () => {
    await s?.close();
    await t?.close();
  });

  const titleOf = (body: string) => /<title>([^<]*)<\/title>/.exec(body)?.[1];

  test("every page's title ends with the site's name", async () => {
    assert.equal(titleOf((await s.get('/blog/pictures')).body), 'Pictures &amp; &lt;words&gt; — Test blog');
    assert.equal(titleOf((await s.get('/blog')).body), 'Blog — Test blog');
    assert.equal(titleOf((await s.get('/blog?page=1')).body), 'Blog — Test blog');
    assert.equal(titleOf((await s.get('/blog/nothing-here')).body), 'Not found — Test blog');
    assert.equal(titleOf((await s.get('/preview')).body), 'Preview link not valid — Test blog');
    const article = (await s.get('/blog/pictures')).body;
    assert.match(article, /<meta property="og:title" content="Pictures &amp; &lt;words&gt;">/);
  });

  test('the pager links each page at its canonical address: page 1 is /blog', async (ctx) => {
    // A site of its own: the other tests read the first list page.
    const folioUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const paged = await startSite(t, folioUrl, { articlesPath: '/blog' });
    ctx.after(() => paged.close());
    for (let i = 0; i < 21; i++) {
      await t.putArticle(paged.project.id, `pager-${i}`, newArticle({ slug: `pager-${i}`, published: true }));
    }
    const links = (body: string) => ({
      prev: /<a rel="prev" href="([^"]*)"/.exec(body)?.[1],
      next: /<a rel="next" href="([^"]*)"/.exec(body)?.[1],
      canonical: /<link rel="canonical" href="[^"]*?(\/blog[^"]*)"/.exec(body)?.[1],
    });
    assert.deepEqual(links((await paged.get('/blog')).body), {
      prev: undefined,
      next: '/blog?page=2',
      canonical: '/blog',
    });
    const second = links((await paged.get('/blog?page=2')).body);
    assert.deepEqual(second, { prev: '/blog', next: '/blog?page=3', canonical: '/blog?page=2' });
    // Each link leads to the page whose canonical it is.
    assert.equal(links((await paged.get(second.prev!)).body).canonical, second.prev);
    assert.equal(links((await paged.get(second.next!)).body).canonical, second.next);
  });

  test('a list page opens only at the page number the site writes, never an error page', async (ctx) => {
    const logged = ctx.mock.method(console, 'error', () => {});
    assert.equal((await s.get('/blog?page=1')).status, 200);
    // Number() reads each of these as 1, or as a number Folio refuses once written back.
    for (const page of [
      '01',
      '0x1',
      '%201',
      '1%20',
      '1.0',
      '1e0',
      '+1',
      '',
      '0',
      '-1',
      '1e21',
      '9007199254740993',
    ]) {
      const answer = await s.get(`/blog?page=${page}`);
      assert.equal(answer.status, 404, `?page=${page}`);
      assert.equal(h1Of(answer.body), 'Not found', `?page=${page}`);
    }
    assert.equal(logged.mock.callCount(), 0, 'nothing went wrong with Folio');
  });

  test('every page links the icon, which is served, and /favicon.ico leads to it', async () => {
    for (const path of ['/blog', '/blog/pictures', '/blog/nothing-here']) {
      assert.match(
        (await s.get(path)).body,
        /<link rel="icon" href="\/favicon\.svg" type="image\/svg\+xml">/,
      );
    }
    const icon = await s.get('/favicon.svg');
    assert.equal(icon.status, 200);
    assert.equal(icon.type, 'image/svg+xml');
    assert.match(icon.body, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    const ico = await s.get('/favicon.ico');
    assert.deepEqual([ico.status, ico.location], [301, '/favicon.svg']);
  });

  test('a list excerpt that Folio cut mid-sentence ends with an ellipsis', async () => {
    const list = (await s.get('/blog')).body;
    const excerpt =
      /<h2><a href="\/blog\/pictures">[^<]*<\/a><\/h2>\n<p class="meta">.*<\/p>\n<p>([^<]*)<\/p>/.exec(
        list,
      )?.[1];
    assert.ok(excerpt, list);
    assert.ok(excerpt.endsWith('…'), excerpt);
    assert.ok(LONG_FIRST_PARAGRAPH.startsWith(excerpt.slice(0, -1)), excerpt);
  });

  test('the first image loads at once, later ones lazily, each with its width and height', async () => {
    const images = [...(await s.get('/blog/pictures')).body.matchAll(/<img [^>]*>/g)].map(
      (match) => match[0],
    );
    assert.deepEqual(images, [
      '<img src="/images/first.png" alt="First" width="1200" height="800" fetchpriority="high">',
      '<img src="/images/second.png" alt="Second" width="640" height="480" loading="lazy">',
    ]);
  });
});

describe("example site: /preview, the route of Folio's preview links", () => {
  let t: TestApp;
  let s: Awaited<ReturnType<typeof startSite>>;
  const HOUR = 3_600_000;

  before(async () => {
    t = await createTestApp('sqlite', { clockStart: Date.now() });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    s = await startSite(t, `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`, {
      articlesPath: '/blog',
    });
    await t.admin('PATCH', `/admin/v1/projects/${s.project.id}`, {
      previewUrl: `${s.origin}/preview?slug={slug}&token={token}`,
    });
  });
  after(async () => {
    await s?.close();
    await t?.close();
  });

  const one = (id: string) => `/admin/v1/projects/${s.project.id}/articles/${id}`;
  const saveDraft = (id: string, slug: string, title: string) =>
    t.admin(
      'PUT',
      `${one(id)}/draft`,
      newArticle({ slug, title, blocks: [paragraph(`${title}: the text.`)] }),
    );
  /** The site path of a new preview link of article `id`. */
  async function previewPath(id: string): Promise<string> {
    const link = await t.admin('POST', `${one(id)}/preview-link`);
    assert.equal(link.statusCode, 201, link.body);
    const url = new URL(link.json().data.url);
    assert.equal(url.origin, s.origin);
    return `${url.pathname}${url.search}`;
  }
  const assertNeverStored = (answer: Answer) => {
    assert.equal(answer.headers.get('cache-control'), 'no-store');
    assert.equal(answer.headers.get('x-robots-tag'), 'noindex');
    assert.equal(answer.headers.get('referrer-policy'), 'no-referrer');
    assert.match(answer.body, /<meta name="robots" content="noindex">/);
  };

  test('shows the draft under a Preview banner, uncached; the public page keeps the published text', async () => {
    await t.putArticle(
      s.project.id,
      'kept',
      newArticle({ slug: 'kept', title: 'As published', published: true }),
    );
    await saveDraft('kept', 'kept', 'First draft');
    const path = await previewPath('kept');
    assert.match(path, /^\/preview\?slug=kept&token=folio_pt_/);

    const preview = await s.get(path);
    assert.equal(preview.status, 200);
    assert.equal(h1Of(preview.body), 'First draft');
    assert.match(preview.body, /First draft: the text\./);
    assert.match(preview.body, /<strong class="preview-label">Preview<\/strong> <span>Unpublished changes\./);
    assertNeverStored(preview);
    assert.equal(h1Of((await s.get('/blog/kept')).body), 'As published');

    // No webhook reaches this site: only a page that was never cached can show the new draft.
    await saveDraft('kept', 'kept', 'Second draft');
    assert.equal(h1Of((await s.get(path)).body), 'Second draft');
    assert.equal(h1Of((await s.get('/blog/kept')).body), 'As published');
  });

  test('previews an article never published, by its draft slug', async () => {
    await saveDraft('soon', 'coming-soon', 'Coming soon');
    const preview = await s.get(await previewPath('soon'));
    assert.equal(preview.status, 200);
    assert.equal(h1Of(preview.body), 'Coming soon');
    assert.match(preview.body, /Not published\. Visitors cannot see this article yet\./);
    assert.match(preview.body, /Not published yet · saved <time/);
    assertNeverStored(preview);
    assert.equal((await s.get('/blog/coming-soon')).status, 404);
  });

  test('a missing, made-up, misused, deleted or expired token answers the 401 page', async () => {
    await saveDraft('other', 'other', 'Other');
    await saveDraft('doomed', 'doomed', 'Doomed');
    const otherPath = await previewPath('other');
    const doomedPath = await previewPath('doomed');
    await t.admin('DELETE', one('doomed'));
    const token = new URL(otherPath, s.origin).searchParams.get('token')!;
    const refusedPaths = [
      '/preview',
      '/preview?slug=other',
      `/preview?token=${token}`,
      '/preview?slug=other&token=folio_pt_made-up',
      '/preview?slug=other&token=made-up',
      '/preview?slug=other&token=folio_ck_made-up',
      `/preview?slug=kept&token=${token}`,
      doomedPath,
    ];
    for (const path of refusedPaths) {
      const refused = await s.get(path);
      assert.equal(refused.status, 401, path);
      assert.equal(h1Of(refused.body), 'This preview link is no longer valid', path);
      assertNeverStored(refused);
    }
    assert.equal((await s.get(otherPath)).status, 200);
    t.clock.advance(HOUR);
    assert.equal((await s.get(otherPath)).status, 401, 'an hour later');
  });
});
