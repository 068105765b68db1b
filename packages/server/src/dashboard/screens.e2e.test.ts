import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { fixtureArticle } from '../content/fixture-article.ts';
import { saveDraft } from '../services/drafts.ts';
import { chromiumMissing, launchChromium } from '../test/browser.ts';
import { type Receiver, startReceiver } from '../test/receiver.ts';
import { ADMIN_TOKEN, createTestApp, newArticle, paragraph, type TestApp } from '../test/test-app.ts';

const skip = chromiumMissing('the dashboard screens test');

// Screenshots for a reviewer; test-results/ is gitignored.
const SHOTS = new URL('../../../../test-results/dashboard/screens/', import.meta.url);
const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
  // WCAG reflow: a 1280 px screen zoomed to 400%.
  { name: 'zoomed', width: 320, height: 256 },
] as const;

/** What a screen must not do: scroll sideways, or put a button where the viewer cannot see it. */
async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const width = window.innerWidth;
    const overflow = document.documentElement.scrollWidth - width;
    if (overflow > 0) problems.push(`the page scrolls ${overflow}px sideways`);
    const controls = document.querySelectorAll('button, a.button, summary.button, input[type="submit"]');
    for (const control of controls) {
      const box = control.getBoundingClientRect();
      // Not rendered: inside a closed disclosure, or hidden until the script shows it.
      if (control.closest('details:not([open]) > :not(summary)')) continue;
      if (box.width === 0 && box.height === 0) continue;
      const label = (control.getAttribute('aria-label') ?? control.textContent ?? '').trim();
      if (box.left < 0 || box.right > width + 0.5) {
        problems.push(`"${label}" spans ${Math.round(box.left)}–${Math.round(box.right)}px of ${width}px`);
      }
      // Nor cut off by a box that scrolls or clips, such as a table's scroll area.
      for (let box2 = control.parentElement; box2; box2 = box2.parentElement) {
        if (getComputedStyle(box2).overflowX === 'visible') continue;
        const clip = box2.getBoundingClientRect();
        if (box.left < clip.left - 0.5 || box.right > clip.right + 0.5) {
          problems.push(`"${label}" is cut off by ${box2.tagName.toLowerCase()}.${box2.className}`);
        }
        break;
      }
    }
    return problems;
  });
}

describe('dashboard screens in Chromium, desktop, phone and zoomed', { skip }, () => {
  let t: TestApp;
  let browser: Browser;
  let receiver: Receiver;
  let origin: string;
  let projectId: string;
  let emptyId: string;

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    t = await createTestApp('sqlite', { clockStart: Date.now() });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    receiver = await startReceiver();
    browser = await launchChromium();
    ({ projectId, emptyId } = await fill(t, receiver));
  });

  after(async () => {
    await browser?.close();
    await receiver?.close();
    await t?.close();
  });

  for (const viewport of VIEWPORTS) {
    test(`every page at ${viewport.width}×${viewport.height}: no sideways scroll, every button on screen, no console error`, async () => {
      const context = await browser.newContext({
        viewport: { width: viewport.width, height: viewport.height },
      });
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      const errors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(`${page.url()}: ${message.text()}`);
      });
      page.on('pageerror', (error) => errors.push(`${page.url()}: ${error.message}`));
      const shot = (name: string) =>
        page.screenshot({ path: new URL(`${viewport.name}-${name}.png`, SHOTS).pathname, fullPage: true });
      const problems: string[] = [];
      const check = async (name: string) => {
        await shot(name);
        problems.push(...(await layoutProblems(page)).map((problem) => `${name}: ${problem}`));
      };

      await page.goto(`${origin}/dashboard/sign-in`);
      await check('01-sign-in');
      await signIn(page);

      const project = `${origin}/dashboard/projects/${projectId}`;
      const pages: Array<[string, string]> = [
        ['02-projects', `${origin}/dashboard`],
        ['03-delivery', project],
        ['05-articles', `${project}/articles`],
        ['06-articles-empty', `${origin}/dashboard/projects/${emptyId}/articles`],
        ['07-article', `${project}/articles/a1`],
        ['08-settings', `${project}/settings`],
      ];
      for (const [name, url] of pages) {
        await page.goto(url);
        await page.locator('main h1').first().waitFor();
        await check(name);
      }

      // The delivery log with a delivery's detail open; the Last hour card on its own.
      await page.goto(project);
      const failing = page.locator('#delivery-log tbody.delivery').filter({ hasText: 'HTTP 500' });
      await failing.locator('summary').click();
      await failing.getByText('Last response', { exact: true }).first().waitFor();
      await check('04-delivery-log-open');
      await page.locator('#delivery-log').screenshot({
        path: new URL(`${viewport.name}-04-delivery-log.png`, SHOTS).pathname,
      });
      await page
        .locator('#traffic')
        .screenshot({ path: new URL(`${viewport.name}-09-traffic.png`, SHOTS).pathname });
      problems.push(...(await layoutProblems(page)).map((problem) => `traffic: ${problem}`));

      // Every row's actions are on the screen, so none hides past the right edge.
      for (const name of ['Revoke…', 'Retry', 'Unpublish', 'Delete…']) {
        const url = name === 'Retry' || name === 'Revoke…' ? project : `${project}/articles`;
        if (page.url() !== url) await page.goto(url);
        // The visible label starts the text; a row's subject may follow it out of sight.
        const first = page.getByText(new RegExp(`^${name}`)).first();
        await first.scrollIntoViewIfNeeded();
        const box = (await first.boundingBox())!;
        assert.ok(box.x >= 0 && box.x + box.width <= viewport.width, `${name} at ${box.x}+${box.width}`);
      }

      // A confirmation opened in the last column stays on the screen too.
      await page.goto(`${project}/articles`);
      await page
        .getByText(/^Delete…/)
        .first()
        .click();
      await page.getByRole('button', { name: 'Delete article' }).first().waitFor();
      await check('05-articles-confirm-delete');

      // A refused form: the wrong field is marked and the message sits beside it.
      await page.goto(`${project}/settings`);
      await page.getByLabel('Website URL').fill('www.example.org');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.locator('#site-error').waitFor();
      assert.equal(await page.getByLabel('Website URL').getAttribute('aria-invalid'), 'true');
      assert.equal(await page.getByLabel(/Articles live under/).getAttribute('aria-invalid'), null);
      await page.waitForFunction(() => document.activeElement?.id === 'website-url');
      await check('10-settings-refused');

      assert.deepEqual(problems, []);
      assert.deepEqual(errors, []);
      await context.close();
    });
  }
});

async function signIn(page: Page): Promise<void> {
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
}

/**
 * A project with something in every table, long values where they can be long, and one empty
 * project: keys, a webhook delivery log with a success and a failure, articles in every state.
 */
async function fill(t: TestApp, receiver: Receiver): Promise<{ projectId: string; emptyId: string }> {
  const project = await t.createProject({
    name: 'Field notes from the northern coast',
    websiteUrl: 'https://www.field-notes.example.com',
    articlesPath: '/journal/field-notes',
  });
  const empty = await t.createProject({ name: 'Not started' });
  await t.admin('PATCH', `/admin/v1/projects/${project.id}`, {
    previewUrl: 'https://www.field-notes.example.com/api/preview?slug={slug}&token={token}',
  });
  for (const [name, kind] of [
    ['production site on the edge network', 'content'],
    ['server-side preview renderer', 'preview'],
  ] as const) {
    await t.admin('POST', `/admin/v1/projects/${project.id}/keys`, { name, kind });
  }
  await t.admin('PUT', `/admin/v1/projects/${project.id}/webhook`, { url: receiver.url });
  receiver.replies.push({ status: 204 }, { status: 500, body: JSON.stringify({ error: 'x'.repeat(700) }) });
  await t.admin('POST', `/admin/v1/projects/${project.id}/webhook/test`);
  await t.dispatcher.runOnce();
  await t.putArticle(project.id, 'a2', {
    ...newArticle({ slug: 'a-very-long-slug-about-tide-pools-and-the-creatures-in-them', published: true }),
    title: 'Tide pools at low water, and the creatures that wait in them for the sea',
  });
  await t.dispatcher.runOnce();
  await t.putArticle(project.id, 'a1', {
    ...newArticle({ slug: 'harbour-lights', title: 'Harbour lights', published: true }),
    blocks: [paragraph('The harbour lights come on one by one as the fishing boats return.')],
    related: ['a-very-long-slug-about-tide-pools-and-the-creatures-in-them'],
  });
  await saveDraft({ db: t.db, now: t.clock.now }, project.id, 'a1', {
    slug: 'harbour-lights-at-dusk',
    title: 'Harbour lights at dusk',
    blocks: fixtureArticle.blocks,
  });
  await t.putArticle(project.id, 'a3', newArticle({ slug: 'unwritten', title: 'Notes not yet published' }));
  await t.admin('PATCH', `/admin/v1/projects/${project.id}/articles/a3`, {
    publishAt: new Date(t.clock.now() + 86_400_000).toISOString(),
  });
  return { projectId: project.id, emptyId: empty.id };
}
