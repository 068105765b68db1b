import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { chromiumMissing, launchChromium } from '../../test/browser.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';

const skip = chromiumMissing('the API reference browser test');
// Screenshots for a reviewer; test-results/ is gitignored.
const SHOTS = new URL('../../../../../test-results/docs/', import.meta.url);

/** Whether `text` is visible on `page` within a moment, wherever it is (navigation or content). */
async function shows(page: Page, text: string): Promise<boolean> {
  try {
    await page.getByText(text, { exact: true }).filter({ visible: true }).first().waitFor({ timeout: 3_000 });
    return true;
  } catch {
    return false;
  }
}

describe('the API reference at /docs, in Chromium', { skip }, () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    t = await createTestApp('sqlite');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('renders every operation of the document, with nothing fetched from outside the server', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/public/v1/openapi.json' })).json();
    const operations = Object.values(
      document.paths as Record<string, Record<string, { summary: string; tags: string[] }>>,
    ).flatMap((methods) => Object.values(methods));
    const summaries = operations.map((operation) => operation.summary);
    const tags = [...new Set(operations.flatMap((operation) => operation.tags))];
    for (const width of [1280, 390]) {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      const outside: string[] = [];
      const errors: string[] = [];
      // Finished requests only: Redoc's attribution logo points at its CDN, which the page's
      // content security policy blocks before anything is sent.
      page.on('requestfinished', (request) => {
        if (!request.url().startsWith(origin) && !request.url().startsWith('data:'))
          outside.push(request.url());
      });
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${origin}/docs`);
      await page.getByText(tags[0]!, { exact: true }).first().waitFor({ state: 'attached', timeout: 20_000 });
      // On a phone the navigation sits behind a button.
      if (width < 600) await page.getByRole('button', { name: 'Open navigation menu' }).click();
      // The navigation lists a tag's operations once the tag is opened (a click toggles it).
      // What is rendered, not what the markup holds: a collapsed section does not count.
      // biome-ignore lint/performance/useDomNodeTextContent: textContent would count hidden text
      const rendered = () => page.evaluate(() => document.body.innerText);
      let seen = await rendered();
      for (const tag of tags) {
        const first = operations.find((operation) => operation.tags.includes(tag))!.summary;
        // A click toggles the tag, and the section opens after a render: a tag that was open
        // already closes, so it is clicked again when its first operation does not show.
        for (let click = 0; click < 2; click++) {
          await page.getByText(tag, { exact: true }).first().click();
          if (await shows(page, first)) break;
        }
        seen += await rendered();
      }
      const missing = summaries.filter((summary) => !seen.includes(summary));
      assert.deepEqual(missing, [], `${width}px: operations not on the page`);
      await page.screenshot({ path: new URL(`docs-${width}.png`, SHOTS).pathname });
      assert.deepEqual(outside, [], `${width}px: requests outside the server`);
      assert.deepEqual(errors, [], `${width}px: errors in the page`);
      await page.close();
    }
  });
});
