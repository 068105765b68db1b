import fs from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium; a browser download is not possible on these machines. */
const CHROMIUM = '/usr/bin/chromium';

/**
 * True when the browser tests cannot run here. In CI a missing Chromium is a failure, never a
 * silent skip; elsewhere the suite says loudly that it skipped.
 */
export function chromiumMissing(suite: string): boolean {
  if (fs.existsSync(CHROMIUM)) return false;
  if (process.env.CI === 'true') throw new Error(`Chromium is required in CI but ${CHROMIUM} is missing`);
  process.stderr.write(`\n!!! ${CHROMIUM} is missing: ${suite} is SKIPPED (apt-get install chromium)\n\n`);
  return true;
}

/** Headless Chromium with the flags this sandbox needs (no network beyond the machine). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
