// What the example site's browser tests check on every page they open: nothing wider than the
// screen, screenshots for a reviewer, and articles' images served without leaving the machine.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { Page } from 'playwright-core';

/** Where screenshots go; test-results/ is gitignored. */
export const SHOTS = new URL('../../../test-results/example-site/', import.meta.url);

/** The host of the images in Folio's example and demo articles, which does not exist. */
export const CONTENT_IMAGES = 'https://images.example.com/';

/** A 3:2 picture, the shape of the example article's image (1200 × 800). */
const PLACEHOLDER = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="800" viewBox="0 0 1200 800">
<rect width="1200" height="800" fill="#dfe7f3"/><rect x="120" y="120" width="960" height="560" rx="24" fill="#b9cbe6"/>
</svg>`;

/**
 * Answers the requests for article images with a placeholder, so pages show a picture and
 * nothing leaves the machine; `hold` delays each answer until it resolves.
 */
export async function serveContentImages(page: Page, hold?: Promise<void>): Promise<void> {
  await page.route(`${CONTENT_IMAGES}**`, async (route) => {
    await hold;
    await route.fulfill({ contentType: 'image/svg+xml', body: PLACEHOLDER });
  });
}

/** Fails when the page is wider than its viewport, naming the elements that stick out. */
export async function assertNoOverflow(page: Page, name: string): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  const wide = await page.evaluate(() =>
    [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
      .slice(0, 8)
      .map((el) => `${el.tagName}.${el.className}`),
  );
  assert.ok(overflow <= 0, `${name}: the page is ${overflow}px wider than the screen: ${wide.join(', ')}`);
}

/** What the reader sees first (`NAME.png`) and the whole page (`NAME-full.png`). */
export async function shoot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, SHOTS).pathname });
  await page.screenshot({ path: new URL(`${name}-full.png`, SHOTS).pathname, fullPage: true });
}
