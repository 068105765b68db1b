import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { fixtureArticle } from '../content/fixture-article.ts';
import { saveDraft } from '../services/drafts.ts';
import { chromiumMissing, launchChromium } from '../test/browser.ts';
import { type Receiver, startReceiver } from '../test/receiver.ts';
import { ADMIN_TOKEN, createTestApp, newArticle, type TestApp } from '../test/test-app.ts';

const skip = chromiumMissing('the dashboard browser test');

// Screenshots for a reviewer; test-results/ is gitignored.
const SHOTS = new URL('../../../../test-results/dashboard/', import.meta.url);

/** Fails when the page is wider than its viewport, naming the elements that stick out. */
async function assertNoOverflow(page: Page, name: string): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  if (overflow > 0) {
    console.error(
      await page.evaluate(() =>
        [...document.querySelectorAll('body *')]
          .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
          .slice(0, 8)
          .map((el) => `${el.tagName}.${el.className} ${Math.round(el.getBoundingClientRect().right)}`)
          .join('\n'),
      ),
    );
  }
  assert.ok(overflow <= 0, `${name}: the page is ${overflow}px wider than the screen`);
}

describe('dashboard in Chromium', { skip }, () => {
  let t: TestApp;
  let browser: Browser;
  let receiver: Receiver;
  let origin: string;
  let page: Page;
  const requests: string[] = [];
  const consoleErrors: string[] = [];

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    t = await createTestApp('sqlite', { clockStart: Date.now(), dispatcher: { pollIntervalMs: 100 } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    t.dispatcher.start();
    receiver = await startReceiver();
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('request', (request) => requests.push(request.url()));
    page.on('console', (message) => {
      // The refused sign-in answers 401 on purpose; anything else is a broken page.
      if (message.type() === 'error' && !message.text().includes('status of 401')) {
        consoleErrors.push(message.text());
      }
    });
  });

  after(async () => {
    await browser?.close();
    await receiver?.close();
    await t?.close();
  });

  const shot = (name: string, on = page) =>
    on.screenshot({ path: new URL(`${name}.png`, SHOTS).pathname, fullPage: true });

  /**
   * After a form that shows a value once, focus is on the box that holds it, named by the outcome
   * and the value, and the next Tab reaches its Copy button rather than the controls after it.
   */
  const assertSecretFocused = async (name: RegExp, copy: string) => {
    const box = page.getByRole('group', { name });
    await page.waitForFunction(() => document.activeElement?.matches('.once'));
    assert.equal(await box.evaluate((element) => element === document.activeElement), true);
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), copy);
  };

  /** A tab of a browser of its own, signed in; without the page's script if asked. */
  const signedInTab = async ({ javaScriptEnabled = true, width = 1280 } = {}) => {
    const context = await browser.newContext({ viewport: { width, height: 900 }, javaScriptEnabled });
    const tab = await context.newPage();
    tab.setDefaultTimeout(10_000);
    await tab.goto(`${origin}/dashboard/sign-in`);
    await tab.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await tab.getByRole('button', { name: 'Sign in' }).click();
    await tab.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    return tab;
  };

  test('walks through sign-in, keys, webhook, Settings and articles', async () => {
    // Sign in: a wrong token is explained, the right one opens the projects page.
    await page.goto(`${origin}/dashboard`);
    assert.equal(new URL(page.url()).pathname, '/dashboard/sign-in');
    await page.getByLabel('Admin token').fill('wrong-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('That is not the admin token.').waitFor();
    await shot('01-sign-in-error');
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    const cookies = await page.context().cookies();
    assert.equal(cookies.find((cookie) => cookie.name === 'folio_session')?.httpOnly, true);
    assert.ok(!(await page.content()).includes(ADMIN_TOKEN), 'the token is not in the page');

    // Create a project.
    await page.getByLabel('Name', { exact: true }).fill('Field notes');
    await page.getByLabel('Articles live under').fill('/blog');
    await page.getByLabel('Website URL').fill('https://www.example.com');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: /Delivery/, level: 1 }).waitFor();
    const projectId = (await page.locator('#project-id').textContent())!;
    assert.match(projectId, /^prj_/);
    await t.putArticle(
      projectId,
      'a1',
      newArticle({ slug: 'first-light', title: 'First light', published: true }),
    );
    // Every block type, so the preview shows the whole renderer.
    await t.putArticle(projectId, 'a2', {
      slug: 'draft-notes',
      title: 'Draft notes',
      blocks: fixtureArticle.blocks,
    });

    // Create a key: shown once with a copy button, gone after a reload.
    await page.reload();
    await page.getByLabel('Key name').fill('production site');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('#new-key').textContent())!;
    assert.match(key, /^folio_ck_/);
    await page.getByText('you will not see it again').waitFor();
    // The page's script shows the copy button once it has run: wait for it, do not sample.
    await page.getByRole('button', { name: 'Copy new content key' }).waitFor({ state: 'visible' });
    await assertSecretFocused(
      /^Content key "production site" created\. Your new content key\..* folio_ck_/,
      'Copy new content key',
    );
    await shot('02-delivery-key-created');
    assert.equal((await t.deliver(key, `/api/v1/projects/${projectId}/content`)).statusCode, 200);
    await page.reload();
    assert.equal(await page.locator('#new-key').count(), 0, 'the key is not shown again');
    assert.ok(!(await page.content()).includes(key));
    await page.getByRole('cell', { name: key.slice(0, 15) }).waitFor();

    // Reveal the signing secret.
    await page.getByRole('button', { name: 'Reveal' }).click();
    const secret = (await page.locator('#signing-secret').textContent())!;
    assert.match(secret, /^whsec_/);
    await assertSecretFocused(/^Signing secret revealed; .* whsec_/, 'Copy signing secret');
    receiver.secrets = [secret];

    // A refused URL: the page opens at the webhook card, and focus lands on the field.
    await page.getByLabel(/Webhook URL/).fill('ftp://www.example.com/hook');
    await page.getByRole('button', { name: 'Save URL' }).click();
    await page.getByRole('alert').filter({ hasText: 'Webhook URL' }).waitFor();
    await page.waitForFunction(() => document.activeElement?.id === 'webhook-url');

    // Point the webhook at a local receiver, send a test event, watch the log turn succeeded.
    await page.getByLabel(/Webhook URL/).fill(receiver.url);
    await page.getByRole('button', { name: 'Save URL' }).click();
    await page.getByText('Webhook URL saved.').waitFor();
    // The page opens at the webhook card (#webhook): its outcome is there, in view and focused.
    const saved = page.locator('#webhook-status');
    await page.waitForFunction(() => document.activeElement?.id === 'webhook-status');
    assert.equal(await saved.textContent(), 'Webhook URL saved.');
    assert.ok(
      await saved.evaluate((element) => element.getBoundingClientRect().bottom <= window.innerHeight),
    );
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText('Test event queued').waitFor();
    const [received] = await receiver.waitFor(1);
    assert.equal(received!.json.event, 'webhook.test');
    assert.deepEqual(received!.verified, [true], 'signed with the revealed secret');
    // No reload: the live refresh brings the outcome in.
    await page.locator('#delivery-log .status.succeeded').waitFor({ timeout: 10_000 });
    const row = page.locator('#delivery-log tbody tr').first();
    assert.match((await row.textContent())!, /webhook\.test\s*succeeded\s*1\s*204/);
    // The Last hour card beside it follows, no reload: its Pending became Succeeded.
    await page.waitForFunction(() => {
      const figures = [...document.querySelectorAll('#traffic dl[aria-labelledby] div')].map(
        (part) => `${part.querySelector('dt')?.textContent} ${part.querySelector('dd')?.textContent}`,
      );
      return figures.join(', ') === 'Succeeded 1, Pending 0, Failed 0';
    });
    await shot('03-delivery-webhook-succeeded');

    // Retry sends the same delivery again; its attempts keep counting.
    await page.getByRole('button', { name: /^Retry webhook\.test, / }).click();
    await page.getByText('Delivery queued again.').waitFor();
    const again = await receiver.waitFor(2);
    assert.equal(again[1]!.headers['webhook-id'], received!.headers['webhook-id'], 'the same message id');
    await page.waitForFunction(() =>
      /succeeded\s*2\s*204/.test(document.querySelector('#delivery-log tbody tr')?.textContent ?? ''),
    );

    // The Delivery page holds the seed's three cards and Last hour; site settings are under Settings.
    assert.deepEqual(await page.locator('main h2').allTextContents(), [
      'Connection',
      'Content API keys',
      'Webhook',
      'Last hour',
    ]);
    assert.equal(await page.locator('#traffic svg[role="img"]').count(), 2, 'two per-minute charts');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: /Settings/, level: 1 }).waitFor();
    const siteCard = page.getByRole('region', { name: 'Site and URLs' });
    await siteCard.waitFor();
    assert.equal(await page.getByRole('link', { name: 'Settings' }).getAttribute('aria-current'), 'page');
    assert.equal(await siteCard.locator('#example-canonical-path').textContent(), '/blog/first-light');
    assert.equal(await siteCard.getByLabel('Website URL').inputValue(), 'https://www.example.com');
    assert.equal(await siteCard.getByLabel('Articles live under').inputValue(), '/blog');

    // A bad website URL is refused next to the form, with what was typed, and focus on it.
    await siteCard.getByLabel('Website URL').fill('www.example.org');
    await siteCard.getByLabel('Articles live under').fill('/journal');
    await siteCard.getByRole('button', { name: 'Save settings' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'Website URL must be an absolute URL' });
    await refusal.waitFor();
    assert.equal(await page.locator('#site-error').count(), 1);
    assert.equal(await siteCard.getByLabel('Website URL').inputValue(), 'www.example.org');
    await page.waitForFunction(() => document.activeElement?.id === 'website-url');
    assert.equal(
      (await t.admin('GET', `/admin/v1/projects/${projectId}`)).json().data.articlesPath,
      '/blog',
      'nothing was saved',
    );
    await shot('04-settings-refused');

    // Both values saved: the example URLs and the served canonical paths follow them.
    await siteCard.getByLabel('Website URL').fill('https://field.example.org');
    await siteCard.getByLabel('Articles live under').fill('/journal');
    await siteCard.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Site settings saved.').waitFor();
    assert.equal(new URL(page.url()).pathname, `/dashboard/projects/${projectId}/settings`);
    assert.equal(await page.locator('#example-canonical-path').textContent(), '/journal/first-light');
    assert.equal(
      await page.locator('#example-canonical-url').textContent(),
      'https://field.example.org/journal/first-light',
    );
    const served = await t.deliver(key, `/api/v1/projects/${projectId}/content`);
    assert.equal(served.json().data[0].seo.canonicalPath, '/journal/first-light');
    const sitemap = await t.deliver(key, `/api/v1/projects/${projectId}/content/sitemap`);
    assert.equal(sitemap.json().data[0].url, 'https://field.example.org/journal/first-light');
    await shot('05-settings-saved');

    // Articles: search, preview, publish, delete with confirmation.
    await page.getByRole('link', { name: 'Articles', exact: true }).click();
    await page.getByRole('heading', { name: /Articles/, level: 1 }).waitFor();
    await shot('06-articles');
    await page.getByLabel('Search by title').fill('draft');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('1 article with').waitFor();
    await page.getByRole('link', { name: 'Draft notes' }).click();
    await page
      .getByRole('article', { name: 'Preview' })
      .getByRole('heading', { name: 'Draft notes' })
      .waitFor();
    await shot('07-article-preview');
    await page.getByRole('button', { name: 'Publish Draft notes' }).click();
    await page.getByText('Published "Draft notes".').waitFor();
    // Unpublish asks first; Cancel closes the question and gives focus back to what opened it.
    const unpublish = page.locator('details.confirm').filter({ hasText: 'Unpublish…' });
    await unpublish.locator('summary').click();
    await page.waitForFunction(() => document.activeElement?.textContent?.startsWith('Unpublish article'));
    await unpublish.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await unpublish.evaluate((details: HTMLDetailsElement) => details.open), false);
    assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'SUMMARY');
    assert.equal(
      (await t.admin('GET', `/admin/v1/projects/${projectId}/articles/a2`)).json().data.published,
      true,
    );
    await unpublish.locator('summary').click();
    await unpublish.getByRole('button', { name: /^Unpublish article/ }).click();
    await page.getByText('Unpublished "Draft notes".').waitFor();
    await page.getByText('Delete…').click();
    await page.getByRole('button', { name: 'Delete article' }).click();
    await page.getByText('Deleted "Draft notes".').waitFor();
    assert.equal((await t.admin('GET', `/admin/v1/projects/${projectId}/articles/a2`)).statusCode, 404);

    // Projects list with the rename form.
    await page.getByRole('link', { name: 'Projects', exact: true }).click();
    await page.getByLabel('New name for Field notes').fill('Field notes (renamed)');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByText('Renamed to "Field notes (renamed)".').waitFor();
    await shot('08-projects');

    // After a form, focus is on its outcome; on a fresh page the first Tab reaches the skip link.
    await page.waitForFunction(() => document.activeElement?.className === 'form-status');
    await page.goto(`${origin}/dashboard`);
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');

    // Narrow screens: the Delivery and Settings pages reflow without horizontal scrolling.
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [path, name] of [
      ['', '09-delivery-mobile'],
      ['/settings', '10-settings-mobile'],
    ] as const) {
      await page.goto(`${origin}/dashboard/projects/${projectId}${path}`);
      await shot(name);
      await assertNoOverflow(page, name);
    }

    // Sign out: the old session no longer opens pages.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.goto(`${origin}/dashboard`);
    assert.equal(new URL(page.url()).pathname, '/dashboard/sign-in');

    // Nothing left the machine, and the page script ran without errors.
    assert.deepEqual(
      requests.filter((url) => !url.startsWith(`${origin}/`)),
      [],
    );
    assert.deepEqual(consoleErrors, []);
  });

  test('copy buttons show only where the script runs to work them', async () => {
    const project = await t.createProject({ name: 'Copies' });
    for (const javaScriptEnabled of [true, false]) {
      const tab = await signedInTab({ javaScriptEnabled });
      // The Connection card's values, and the empty list's commands.
      for (const path of ['', '/articles']) {
        await tab.goto(`${origin}/dashboard/projects/${project.id}${path}`);
        const buttons = tab.locator('button[data-copy]');
        if (javaScriptEnabled) await buttons.first().waitFor({ state: 'visible' });
        const shown = await Promise.all((await buttons.all()).map((button) => button.isVisible()));
        assert.ok(shown.length >= 2, `copy buttons on ${path || 'Delivery'}`);
        assert.deepEqual(
          shown,
          shown.map(() => javaScriptEnabled),
          `copy buttons on ${path || 'Delivery'} with the script ${javaScriptEnabled ? 'on' : 'off'}`,
        );
      }
      await tab.context().close();
    }
  });

  test('a website URL without its scheme is explained at Create project as in Settings', async () => {
    const tab = await signedInTab();
    const create = tab.getByRole('region', { name: 'Create a project' });
    await create.getByLabel('Name', { exact: true }).fill('Schemeless');
    await create.getByLabel('Website URL').fill('www.example.org');
    await create.getByRole('button', { name: 'Create project' }).click();
    // The server's reason, beside the field, with what was typed: not the browser's bare
    // "Please enter a URL", which says nothing of the form it wants.
    const refusal = tab.getByRole('alert').filter({ hasText: 'Website URL must be an absolute URL' });
    await refusal.waitFor();
    assert.match((await refusal.textContent())!, /such as https:\/\/www\.example\.com/);
    assert.equal(await create.getByLabel('Website URL').inputValue(), 'www.example.org');
    assert.equal(await create.getByLabel('Name', { exact: true }).inputValue(), 'Schemeless');
    const projects = (await t.admin('GET', '/admin/v1/projects')).json().data as { name: string }[];
    assert.ok(!projects.some((project) => project.name === 'Schemeless'), 'nothing was created');
    await tab.context().close();
  });

  test('a delivery log whose session ended says it stopped refreshing, and how to go on', async () => {
    const project = await t.createProject({ name: 'Watched' });
    const tab = await signedInTab();
    const delivery = `/dashboard/projects/${project.id}`;
    await tab.goto(`${origin}${delivery}`);
    await tab.locator('#delivery-log').waitFor();
    // Signed out in another tab of the same browser: the next refresh is refused.
    const other = await tab.context().newPage();
    await other.goto(`${origin}/dashboard`);
    await other.getByRole('button', { name: 'Sign out' }).click();
    await other.getByRole('heading', { name: 'Sign in' }).waitFor();
    await other.close();
    // A log that only stops would look live while it shows old deliveries.
    const stopped = tab.getByRole('alert').filter({ hasText: 'no longer refreshes' });
    await stopped.waitFor({ timeout: 10_000 });
    const link = stopped.getByRole('link', { name: 'Sign in' });
    assert.equal(
      await link.getAttribute('href'),
      `/dashboard/sign-in?${new URLSearchParams({ next: delivery })}`,
    );
    await link.click();
    await tab.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await tab.getByRole('button', { name: 'Sign in' }).click();
    await tab.getByRole('heading', { name: /Delivery/, level: 1 }).waitFor();
    assert.equal(new URL(tab.url()).pathname, delivery);
    await tab.context().close();
  });

  test('a half-typed schedule time is refused, not read as none, with the script and without', async () => {
    const project = await t.createProject({ name: 'Tides' });
    await t.putArticle(project.id, 'w1', newArticle({ slug: 'spring-tide', title: 'Spring tide' }));
    const publishAt = '2099-03-01T08:00:00.000Z';
    await t.admin('PATCH', `/admin/v1/projects/${project.id}/articles/w1`, { publishAt });
    const stored = async () =>
      (await t.admin('GET', `/admin/v1/projects/${project.id}/articles/w1`)).json().data.publishAt;

    for (const javaScriptEnabled of [true, false]) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled });
      const editor = await context.newPage();
      editor.setDefaultTimeout(10_000);
      const posted: string[] = [];
      editor.on('request', (request) => {
        if (request.method() === 'POST' && request.url().endsWith('/schedule')) posted.push(request.url());
      });
      await editor.goto(`${origin}/dashboard/sign-in`);
      await editor.getByLabel('Admin token').fill(ADMIN_TOKEN);
      await editor.getByRole('button', { name: 'Sign in' }).click();
      await editor.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
      await editor.goto(`${origin}/dashboard/projects/${project.id}/articles/w1`);

      // One Backspace clears the month alone: the field's value is then "", as an empty one's.
      const field = editor.locator('#publish-at');
      await field.focus();
      await editor.keyboard.press('Backspace');
      assert.equal(await field.inputValue(), '');
      assert.equal(await field.evaluate((input: HTMLInputElement) => input.validity.badInput), true);
      await editor.getByRole('button', { name: 'Save schedule' }).click();

      if (javaScriptEnabled) {
        const error = editor.locator('#publish-at-error');
        assert.equal(
          await error.textContent(),
          'Publish at is not a whole date and time: finish it, or clear it for none.',
        );
        assert.equal(await error.getAttribute('role'), 'alert');
        assert.equal(await field.getAttribute('aria-invalid'), 'true');
        assert.equal(await field.getAttribute('aria-describedby'), 'publish-at-error');
        await editor.waitForFunction(() => document.activeElement?.id === 'publish-at');
      } else {
        // The browser's own check holds the form back.
        assert.equal(await field.evaluate((input: HTMLInputElement) => input.matches(':invalid')), true);
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(posted, [], `nothing was sent (script ${javaScriptEnabled ? 'on' : 'off'})`);
      assert.equal(await stored(), publishAt, 'the schedule stands');

      // A field cleared on purpose still cancels that time.
      await field.fill('');
      await editor.getByRole('button', { name: 'Save schedule' }).click();
      await editor.getByText('Nothing is scheduled now.').waitFor();
      assert.equal(await stored(), null);
      await t.admin('PATCH', `/admin/v1/projects/${project.id}/articles/w1`, { publishAt });
      await context.close();
    }
  });

  test('walks an article with a draft: changed, schedule in the viewer’s zone, preview on site, discard', async () => {
    // A viewer in Berlin: the schedule is typed and shown in their zone, stored in UTC.
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      timezoneId: 'Europe/Berlin',
      locale: 'en-GB',
    });
    const editor = await context.newPage();
    editor.setDefaultTimeout(10_000);
    const errors: string[] = [];
    editor.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    // The site's preview route, answered in the browser: nothing leaves the machine.
    const previewed: string[] = [];
    await context.route('https://site.example/**', (route) => {
      previewed.push(route.request().url());
      return route.fulfill({
        contentType: 'text/html',
        body: '<!doctype html><title>Site</title><h1>Site preview</h1>',
      });
    });

    const project = await t.createProject({ name: 'Harbour' });
    await t.admin('PATCH', `/admin/v1/projects/${project.id}`, {
      previewUrl: 'https://site.example/api/preview?slug={slug}&token={token}',
    });
    await t.putArticle(
      project.id,
      'h1',
      newArticle({ slug: 'harbour-lights', title: 'Harbour lights', published: true }),
    );
    await saveDraft({ db: t.db, now: t.clock.now }, project.id, 'h1', {
      slug: 'harbour-lights-at-dusk',
      title: 'Harbour lights at dusk',
      blocks: fixtureArticle.blocks,
    });

    await editor.goto(`${origin}/dashboard/sign-in`);
    await editor.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await editor.getByRole('button', { name: 'Sign in' }).click();
    await editor.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();

    // The list marks the article changed; its page says what the draft changes.
    await editor.goto(`${origin}/dashboard/projects/${project.id}/articles`);
    const row = editor.getByRole('row', { name: /Harbour lights/ });
    assert.equal(await row.locator('.badges').textContent(), 'changed');
    await row.getByRole('link', { name: 'Harbour lights' }).click();
    await editor.getByRole('heading', { name: /Harbour lights · Article/, level: 1 }).waitFor();
    assert.equal(await editor.locator('.card .badges').first().textContent(), 'changed');
    const changes = editor.getByRole('region', { name: 'Draft' });
    assert.equal(
      await changes.locator('#draft-title-change').textContent(),
      'changed from “Harbour lights” to “Harbour lights at dusk”',
    );
    assert.equal(
      await changes.locator('#draft-slug-change').textContent(),
      'changed from harbour-lights to harbour-lights-at-dusk',
    );
    assert.match(
      (await changes.locator('#draft-blocks-change').textContent())!,
      /^differ from what is served/,
    );

    // Schedule the draft's publication at 09:30 Berlin time (summer: UTC+2).
    const schedule = editor.getByRole('region', { name: 'Schedule' });
    await editor.waitForLoadState('domcontentloaded');
    assert.equal(
      await schedule.locator('[data-zone-note]').textContent(),
      'Times are in your time zone, Europe/Berlin.',
    );
    await schedule.getByLabel('Publish the draft at').fill('2099-06-15T09:30');
    await schedule.getByRole('button', { name: 'Save schedule' }).click();
    await editor.getByText('Schedule saved: publishes 2099-06-15 07:30 UTC.').waitFor();
    // The viewer's zone is written in by the deferred script, which runs before DOMContentLoaded
    // but may run after the message above is on the page: a loaded machine read the line first.
    await editor.waitForLoadState('domcontentloaded');
    assert.equal(
      (await t.admin('GET', `/admin/v1/projects/${project.id}/articles/h1`)).json().data.publishAt,
      '2099-06-15T07:30:00.000Z',
    );
    assert.equal(await editor.locator('.card .badges').first().textContent(), 'changed scheduled');
    const when = editor.locator('dd.schedule-lines .schedule-line').first();
    const whenText = (await when.textContent())!.replace(/\s+/g, ' ');
    assert.match(
      whenText,
      /^Publishes the draft on Mon, 15 Jun 2099, 09:30 CEST \(2099-06-15 07:30 UTC\)$/,
      whenText,
    );
    assert.equal(
      await schedule.getByLabel('Publish the draft at').inputValue(),
      '2099-06-15T09:30',
      'shown in Berlin time',
    );
    await shot('11-article-changed-scheduled', editor);

    await editor.setViewportSize({ width: 390, height: 844 });
    await shot('12-article-mobile', editor);
    await assertNoOverflow(editor, 'article page');
    await editor.goto(`${origin}/dashboard/projects/${project.id}/settings`);
    assert.equal(
      await editor.getByLabel('Preview URL').inputValue(),
      'https://site.example/api/preview?slug={slug}&token={token}',
    );
    await shot('13-settings-preview-mobile', editor);
    await assertNoOverflow(editor, 'settings page');
    await editor.setViewportSize({ width: 1280, height: 900 });
    await shot('14-settings-preview', editor);
    await editor.getByRole('link', { name: 'Articles', exact: true }).click();
    assert.equal(await row.locator('.badges').textContent(), 'changed scheduled');
    await shot('15-articles-badges', editor);
    await row.getByRole('link', { name: 'Harbour lights' }).click();

    // Preview on site: a new tab goes on to the site's preview route with a working token.
    const [site] = await Promise.all([
      context.waitForEvent('page'),
      editor.getByRole('button', { name: 'Preview on site (opens a new tab)' }).click(),
    ]);
    await site.waitForURL(/^https:\/\/site\.example\//);
    await site.getByRole('heading', { name: 'Site preview' }).waitFor();
    const opened = new URL(site.url());
    assert.equal(opened.searchParams.get('slug'), 'harbour-lights-at-dusk');
    const token = opened.searchParams.get('token')!;
    assert.match(token, /^folio_pt_/);
    assert.equal(await site.evaluate(() => window.opener), null, 'the site cannot reach the dashboard tab');
    const read = await t.deliver(
      token,
      `/api/v1/projects/${project.id}/content/by-slug/harbour-lights-at-dusk`,
    );
    assert.equal(read.json().data.title, 'Harbour lights at dusk');
    assert.deepEqual(previewed, [site.url()]);
    await site.close();

    // Cancel the schedule, then discard the draft: the published version stands alone again.
    await editor.getByRole('button', { name: 'Cancel schedule' }).click();
    await editor.getByText('Schedule cancelled').waitFor();
    assert.equal(await editor.locator('.card .badges').first().textContent(), 'changed');
    await schedule.getByText('Nothing is scheduled.', { exact: true }).waitFor();
    assert.equal(
      (await t.admin('GET', `/admin/v1/projects/${project.id}/articles/h1`)).json().data.publishAt,
      null,
    );
    await editor.getByText('Discard draft…').click();
    await editor.getByRole('button', { name: 'Discard draft', exact: true }).click();
    await editor.getByText('Draft discarded.').waitFor();
    assert.equal(await editor.locator('.card .badges').first().textContent(), 'published');
    assert.equal(await editor.getByRole('region', { name: 'Draft' }).count(), 0);
    const served = (await t.admin('GET', `/admin/v1/projects/${project.id}/articles/h1`)).json().data;
    assert.deepEqual([served.title, served.draft], ['Harbour lights', null]);

    // A preview key, made beside the content keys and marked as one.
    await editor.getByRole('link', { name: 'Harbour: Delivery' }).click();
    await editor.getByLabel('Key name').fill('server render');
    await editor.getByRole('radio', { name: /Preview key/ }).check();
    await editor.getByRole('button', { name: 'Create key' }).click();
    assert.match((await editor.locator('#new-key').textContent())!, /^folio_pk_/);
    const keyRow = editor.getByRole('row', { name: /server render/ });
    assert.equal(await keyRow.locator('.status').textContent(), 'preview');
    await editor.setViewportSize({ width: 390, height: 844 });
    await editor.locator('#keys').screenshot({ path: new URL('16-keys-preview-mobile.png', SHOTS).pathname });
    await assertNoOverflow(editor, 'delivery page with a preview key');
    assert.deepEqual(errors, []);
    await context.close();
  });
});
