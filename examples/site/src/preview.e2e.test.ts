import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { fixtureArticle } from '../../../packages/server/src/content/fixture-article.ts';
import { chromiumMissing, launchChromium } from '../../../packages/server/src/test/browser.ts';
import { createTestApp, paragraph, type TestApp } from '../../../packages/server/src/test/test-app.ts';
import { assertNoOverflow, CONTENT_IMAGES, serveContentImages, shoot } from './page-checks.ts';
import { createSite } from './site.ts';

const skip = chromiumMissing('the example site preview browser test');

const ID = 'spring';
const SLUG = 'spring-planting';
const PUBLISHED_TITLE = 'Spring planting notes';
const DRAFT_TITLE = 'Spring planting notes, revised for a late and very wet season';
const DRAFT_TEXT = 'The draft text: sow the beans a fortnight later than last year.';

describe("the editor's preview path in Chromium: a live Folio and the example site", { skip }, () => {
  let t: TestApp;
  let browser: Browser;
  let siteServer: http.Server;
  let origin: string;
  let projectId: string;
  const article = () => `/admin/v1/projects/${projectId}/articles/${ID}`;

  before(async () => {
    t = await createTestApp('sqlite', { clockStart: Date.now(), dispatcher: { pollIntervalMs: 100 } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const folioUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    t.dispatcher.start();

    siteServer = http.createServer();
    await new Promise<void>((resolve) => siteServer.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(siteServer.address() as AddressInfo).port}`;

    // As `npm run example` sets the project up: the site's address, its preview route, its webhook.
    projectId = (await t.createProject({ websiteUrl: origin, articlesPath: '/blog' })).id;
    await t.admin('PATCH', `/admin/v1/projects/${projectId}`, {
      previewUrl: `${origin}/preview?slug={slug}&token={token}`,
    });
    await t.admin('PUT', `/admin/v1/projects/${projectId}/webhook`, { url: `${origin}/webhooks/folio` });
    const secret = (await t.admin('POST', `/admin/v1/projects/${projectId}/webhook/reveal-secret`)).json()
      .data.secret;
    const site = createSite({
      folioUrl,
      projectId,
      contentKey: await t.createKey(projectId),
      webhookSecret: secret,
      origin,
      port: 0,
      host: '127.0.0.1',
      siteName: 'Fernhill Notes',
    });
    siteServer.on('request', (request, response) => void site.handle(request, response));
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => siteServer?.close(resolve));
    await t?.close();
  });

  async function open(url: string, width = 1280) {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    page.setDefaultTimeout(10_000);
    await serveContentImages(page);
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    const response = await page.goto(url);
    return { page, requests, response };
  }

  const h1 = (page: Page) => page.locator('h1').textContent();

  test('publish, draft, preview link, publish: the public page changes only after publishing', async () => {
    // 1. An article is published and read once, so the site's cache holds its page.
    await t.putArticle(projectId, ID, {
      slug: SLUG,
      title: PUBLISHED_TITLE,
      blocks: [paragraph('The published text.')],
      published: true,
    });
    const live = await open(`${origin}/blog/${SLUG}`);
    assert.equal(await h1(live.page), PUBLISHED_TITLE);

    // 2. The editor saves a draft: the whole example article under a new title and first line.
    const saved = await t.admin('PUT', `${article()}/draft`, {
      slug: SLUG,
      title: DRAFT_TITLE,
      blocks: [paragraph(DRAFT_TEXT), ...fixtureArticle.blocks],
      related: fixtureArticle.related,
    });
    assert.equal(saved.statusCode, 200, saved.body);

    // 3. "Preview on site": a link to the site's /preview route with a one-hour token.
    const created = await t.admin('POST', `${article()}/preview-link`);
    assert.equal(created.statusCode, 201, created.body);
    const link: string = created.json().data.url;
    assert.ok(link.startsWith(`${origin}/preview?slug=${SLUG}&token=folio_pt_`), link);

    // 4. The link shows the draft under a Preview banner, never stored and never indexed.
    const preview = await open(link);
    try {
      assert.equal(preview.response?.status(), 200);
      assert.equal(preview.response?.headers()['cache-control'], 'no-store');
      assert.equal(await h1(preview.page), DRAFT_TITLE);
      assert.ok(await preview.page.getByText(DRAFT_TEXT).isVisible());
      const banner = preview.page.getByRole('status');
      assert.ok(await banner.isVisible());
      assert.match((await banner.textContent()) ?? '', /Preview\s+Unpublished changes\./);
      assert.equal(await preview.page.locator('meta[name="robots"]').getAttribute('content'), 'noindex');
      // Nothing but the site and the article's own images, which a test route serves here.
      const offSite = preview.requests.filter((url) => !url.startsWith(origin));
      assert.ok(
        offSite.every((url) => url.startsWith(CONTENT_IMAGES)),
        `no requests off the site: ${offSite.join(', ')}`,
      );
      await assertNoOverflow(preview.page, 'preview at 1280 px');
      await shoot(preview.page, 'preview-1280');
      // The banner stays in view down the whole draft.
      await preview.page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
      const box = await banner.boundingBox();
      assert.ok(box && Math.abs(box.y) < 1, `the banner is at y=${box?.y} after scrolling`);

      await preview.page.setViewportSize({ width: 390, height: 844 });
      await preview.page.evaluate(() => window.scrollTo(0, 0));
      await assertNoOverflow(preview.page, 'preview at 390 px');
      await shoot(preview.page, 'preview-390');
    } finally {
      await preview.page.close();
    }

    // 5. Meanwhile the public page still shows what is published.
    await live.page.reload();
    assert.equal(await h1(live.page), PUBLISHED_TITLE);
    assert.ok(await live.page.getByText('The published text.').isVisible());
    assert.equal(await live.page.getByRole('status').count(), 0, 'no banner on the public page');

    // 6. Publishing sends content.updated; the site purges its cache and shows the new text.
    const published = await t.admin('POST', `${article()}/publish`);
    assert.equal(published.statusCode, 200, published.body);
    const deadline = Date.now() + 10_000;
    let title = await h1(live.page);
    while (title !== DRAFT_TITLE && Date.now() < deadline) {
      await live.page.waitForTimeout(150);
      await live.page.reload();
      title = await h1(live.page);
    }
    assert.equal(title, DRAFT_TITLE);
    assert.ok(await live.page.getByText(DRAFT_TEXT).isVisible());
    const log = (await t.admin('GET', `/admin/v1/projects/${projectId}/webhook/deliveries`)).json().data;
    assert.ok(
      log.some(
        (d: { event: string; status: string }) => d.event === 'content.updated' && d.status === 'succeeded',
      ),
      'the site was told by the webhook, not by its cache expiring',
    );
    await live.page.close();

    // The link still opens within its hour, now saying there is nothing unpublished.
    const after = await open(link);
    try {
      assert.match((await after.page.getByRole('status').textContent()) ?? '', /No unpublished changes/);
    } finally {
      await after.page.close();
    }
  });

  test('an expired or made-up link answers the 401 page, uncached', async () => {
    const { page, response } = await open(`${origin}/preview?slug=${SLUG}&token=folio_pt_made-up`, 390);
    try {
      assert.equal(response?.status(), 401);
      assert.equal(response?.headers()['cache-control'], 'no-store');
      assert.equal(await h1(page), 'This preview link is no longer valid');
      await assertNoOverflow(page, 'refused preview at 390 px');
      await shoot(page, 'preview-401-390');
    } finally {
      await page.close();
    }
  });
});
