import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { fixtureArticle } from '../../../packages/server/src/content/fixture-article.ts';
import { chromiumMissing, launchChromium } from '../../../packages/server/src/test/browser.ts';
import { createTestApp, type TestApp } from '../../../packages/server/src/test/test-app.ts';
import { assertNoOverflow, serveContentImages, shoot } from './page-checks.ts';
import { createSite } from './site.ts';

const skip = chromiumMissing('the example site browser test');

const HOSTILE_TITLE = 'Hostile <img src=x onerror=alert(1)> title';
const hostileArticle = {
  slug: 'hostile',
  title: HOSTILE_TITLE,
  published: true,
  seo: {
    jsonLd: {
      '@context': 'https://schema.org',
      '@type': 'BlogPosting',
      headline: '</script><script>alert(2)</script><!--',
    },
  },
  blocks: [
    {
      type: 'paragraph' as const,
      content: [{ text: '<script>alert(3)</script><img src=x onerror=alert(4)>' }],
    },
    { type: 'quote' as const, content: [{ text: 'q' }], attribution: '"><script>alert(5)</script>' },
    { type: 'code' as const, code: '</code><script>alert(6)</script>', language: '"><script>' },
    {
      type: 'table' as const,
      headers: ['<b onmouseover=alert(7)>h</b>'],
      rows: [['<iframe src=javascript:alert(8)>']],
    },
  ],
};

describe('example site in Chromium, backed by a live Folio', { skip }, () => {
  let t: TestApp;
  let browser: Browser;
  let siteServer: http.Server;
  let origin: string;
  let projectId: string;

  before(async () => {
    t = await createTestApp('sqlite', { clockStart: Date.now(), dispatcher: { pollIntervalMs: 100 } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const folioUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    t.dispatcher.start();

    siteServer = http.createServer();
    await new Promise<void>((resolve) => siteServer.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(siteServer.address() as AddressInfo).port}`;

    projectId = (await t.createProject({ websiteUrl: origin, articlesPath: '/blog' })).id;
    const contentKey = await t.createKey(projectId);
    const { id, publishedAt: _p, updatedAt: _u, ...fixture } = fixtureArticle;
    await t.putArticle(projectId, id, { ...fixture, published: true });
    await t.putArticle(projectId, 'hostile', hostileArticle);
    await t.admin('PUT', `/admin/v1/projects/${projectId}/webhook`, { url: `${origin}/webhooks/folio` });
    const secret = (await t.admin('POST', `/admin/v1/projects/${projectId}/webhook/reveal-secret`)).json()
      .data.secret;

    const site = createSite({
      folioUrl,
      projectId,
      contentKey,
      webhookSecret: secret,
      origin,
      port: 0,
      host: '127.0.0.1',
      siteName: 'Test blog',
    });
    siteServer.on('request', (request, response) => void site.handle(request, response));
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => siteServer?.close(resolve));
    await t?.close();
  });

  async function open(path: string, width = 1280) {
    const page = await browser.newPage({ viewport: { width, height: width > 600 ? 800 : 844 } });
    await serveContentImages(page);
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    // Nothing may leave the machine: no CDN fonts, scripts or trackers in the page.
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    const response = await page.goto(`${origin}${path}`);
    return { page, dialogs, requests, status: response?.status() };
  }

  test('the fixture article: one h1, one canonical link, one ld+json script equal to seo.jsonLd', async () => {
    const { page, dialogs, requests, status } = await open(`/blog/${fixtureArticle.slug}`);
    try {
      assert.equal(status, 200);
      assert.equal(await page.locator('h1').count(), 1);
      assert.equal(await page.locator('h1').textContent(), fixtureArticle.title);
      const canonical = page.locator('link[rel="canonical"]');
      assert.equal(await canonical.count(), 1);
      assert.equal(
        await canonical.getAttribute('href'),
        `${origin}/blog/${encodeURIComponent(fixtureArticle.slug)}`,
      );
      const scripts = page.locator('script');
      assert.equal(await scripts.count(), 1, 'the only script is the structured data');
      assert.equal(await scripts.getAttribute('type'), 'application/ld+json');
      const jsonLd = JSON.parse((await scripts.textContent()) ?? '');
      const expected = await t.app
        .inject({
          url: `/api/v1/projects/${projectId}/content/by-slug/${encodeURIComponent(fixtureArticle.slug)}`,
          headers: { authorization: `Bearer ${await t.createKey(projectId)}` },
        })
        .then((r) => r.json().data.seo.jsonLd);
      assert.deepEqual(jsonLd, expected);
      for (const type of [
        'h2',
        'h3',
        'h4',
        'ul',
        'ol',
        'blockquote',
        'pre code',
        'figure img',
        'aside',
        'section.cta a',
        'details summary',
        'table thead',
        'iframe',
      ]) {
        assert.ok((await page.locator(type).count()) > 0, `renders ${type}`);
      }
      assert.deepEqual(dialogs, []);
      // Only the site's own files and the article's image (served by a test route): no CDN fonts,
      // scripts or trackers.
      const imageUrls = fixtureArticle.blocks.flatMap((block) => (block.type === 'image' ? [block.url] : []));
      assert.deepEqual(
        requests.filter((url) => !url.startsWith(origin)),
        imageUrls,
        'no external requests but the article image',
      );
    } finally {
      await page.close();
    }
  });

  test('the first image loads at once, sized before it arrives: nothing moves when it does', async () => {
    const image = fixtureArticle.blocks.find((block) => block.type === 'image')!;
    assert.ok(image.width && image.height, 'the fixture image has a width and a height');
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    try {
      await page.addInitScript(() => {
        const w = window as unknown as { layoutShift: number };
        w.layoutShift = 0;
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries() as unknown as Array<{ value: number }>)
            w.layoutShift += entry.value;
        }).observe({ type: 'layout-shift', buffered: true });
      });
      await serveContentImages(page, held);
      const requested = page.waitForRequest(image.url, { timeout: 5_000 });
      await page.goto(`${origin}/blog/${fixtureArticle.slug}`, { waitUntil: 'domcontentloaded' });
      // Asked for before any scrolling: it is not lazy.
      await requested;
      const img = page.locator('figure img').first();
      assert.equal(await img.getAttribute('loading'), null);
      assert.equal(await img.getAttribute('fetchpriority'), 'high');
      assert.equal(await img.getAttribute('width'), String(image.width));
      assert.equal(await img.getAttribute('height'), String(image.height));
      assert.equal(await img.evaluate((el: HTMLImageElement) => el.complete), false, 'still loading');
      const next = page.locator(`#${fixtureArticle.blocks[fixtureArticle.blocks.indexOf(image) + 1]!.id}`);
      const boxWhileLoading = (await img.boundingBox())!;
      const nextWhileLoading = (await next.boundingBox())!;
      assert.ok(
        Math.abs(boxWhileLoading.height - (boxWhileLoading.width * image.height) / image.width) < 1,
        `the box keeps the image's shape while it loads: ${JSON.stringify(boxWhileLoading)}`,
      );

      release();
      await page.waitForFunction(() => {
        const el = document.querySelector('figure img') as HTMLImageElement;
        return el.complete && el.naturalWidth > 0;
      });
      assert.deepEqual(await img.boundingBox(), boxWhileLoading);
      assert.deepEqual(await next.boundingBox(), nextWhileLoading, 'the text below stays where it was');
      const shift = await page.evaluate(() => (window as unknown as { layoutShift: number }).layoutShift);
      assert.equal(shift, 0, 'no layout shift');
    } finally {
      release();
      await page.close();
    }
  });

  test('the list and the example article at 1280 and 390 px: no sideways scroll', async () => {
    for (const width of [1280, 390]) {
      for (const [name, path] of [
        ['list', '/blog'],
        ['article', `/blog/${fixtureArticle.slug}`],
      ] as const) {
        const { page, status } = await open(path, width);
        try {
          assert.equal(status, 200);
          assert.equal(
            await page.title(),
            `${name === 'list' ? 'Blog' : fixtureArticle.seo!.title} — Test blog`,
          );
          await page.waitForLoadState('load');
          await assertNoOverflow(page, `${name} at ${width} px`);
          await shoot(page, `site-${name}-${width}`);
        } finally {
          await page.close();
        }
      }
    }
  });

  test('hostile content renders as text: no script, no dialog, no event handler', async () => {
    const { page, dialogs } = await open('/blog/hostile');
    try {
      await page.waitForTimeout(300);
      assert.equal(await page.locator('h1').textContent(), HOSTILE_TITLE);
      assert.equal(await page.locator('script').count(), 1);
      assert.equal(await page.locator('[onerror], [onmouseover], iframe[src^="javascript"]').count(), 0);
      const jsonLd = JSON.parse((await page.locator('script').textContent()) ?? '');
      assert.equal(jsonLd.headline, hostileArticle.seo.jsonLd.headline);
      assert.match((await page.locator('main').textContent()) ?? '', /<script>alert\(3\)<\/script>/);
      // No related slugs given: the newest other article is offered, on its canonical path.
      assert.equal(
        await page.locator('.related a').first().getAttribute('href'),
        `/blog/${encodeURIComponent(fixtureArticle.slug)}`,
      );
      assert.deepEqual(dialogs, []);
    } finally {
      await page.close();
    }
  });

  test('after an edit and its webhook, the page shows the new title', async () => {
    const { page } = await open('/blog/hostile');
    try {
      assert.equal(await page.locator('h1').textContent(), HOSTILE_TITLE);
      await t.putArticle(projectId, 'hostile', { ...hostileArticle, title: 'A calmer title' });
      const deadline = Date.now() + 10_000;
      let title = HOSTILE_TITLE;
      while (title !== 'A calmer title' && Date.now() < deadline) {
        await page.waitForTimeout(150);
        await page.reload();
        title = (await page.locator('h1').textContent()) ?? '';
      }
      assert.equal(title, 'A calmer title');
      const log = (await t.admin('GET', `/admin/v1/projects/${projectId}/webhook/deliveries`)).json().data;
      assert.ok(
        log.some(
          (d: { event: string; status: string }) => d.event === 'content.updated' && d.status === 'succeeded',
        ),
      );
    } finally {
      await page.close();
    }
  });

  test('404 page, sitemap and robots', async () => {
    const { page, status } = await open('/blog/no-such-article');
    try {
      assert.equal(status, 404);
      assert.equal(await page.locator('h1').textContent(), 'Not found');
    } finally {
      await page.close();
    }
    const sitemap = await (await fetch(`${origin}/sitemap.xml`)).text();
    assert.match(sitemap, new RegExp(`<loc>${origin}/blog/hostile</loc>`));
    const robots = await (await fetch(`${origin}/robots.txt`)).text();
    assert.match(robots, new RegExp(`Sitemap: ${origin}/sitemap.xml`));
    const trailing = await fetch(`${origin}/blog/hostile/`, { redirect: 'manual' });
    assert.equal(trailing.status, 301);
    assert.equal(trailing.headers.get('location'), '/blog/hostile');
  });
});
