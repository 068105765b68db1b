import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { stripTypeScriptTypes } from 'node:module';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { chromiumMissing, launchChromium } from '../../server/src/test/browser.ts';

/**
 * Site rule 5 in a real browser: the check `createClient` makes refuses a page and each kind of
 * worker a page can start, though a worker has neither `window` nor `document`.
 */

const skip = chromiumMissing('the client browser test');
// The check's own source, as the browser gets it from any bundler: types stripped, nothing else.
const credentials = stripTypeScriptTypes(readFileSync(new URL('./credentials.ts', import.meta.url), 'utf8'));

const probe = `import { refuseBrowser } from '/credentials.js';
export function where() {
  try { refuseBrowser(); return 'allowed'; } catch (error) { return /rule 5/.test(error.message) ? 'refused' : String(error); }
}`;
const dedicated = `import { where } from '/probe.js'; postMessage(where());`;
const shared = `import { where } from '/probe.js'; onconnect = (event) => event.ports[0].postMessage(where());`;
const page = `<!doctype html><title>rule 5</title><script type="module">
import { where } from '/probe.js';
const fromWorker = (port) => new Promise((resolve) => { port.onmessage = (m) => resolve(m.data); port.start?.(); });
window.results = Promise.all([
  where(),
  fromWorker(new Worker('/dedicated.js', { type: 'module' })),
  fromWorker(new SharedWorker('/shared.js', { type: 'module' }).port),
]);
</script>`;

const files: Record<string, [string, string]> = {
  '/': ['text/html', page],
  '/credentials.js': ['text/javascript', credentials],
  '/probe.js': ['text/javascript', probe],
  '/dedicated.js': ['text/javascript', dedicated],
  '/shared.js': ['text/javascript', shared],
};

describe('createClient in a browser (rule 5)', { skip }, () => {
  let server: http.Server;
  let browser: Browser;
  let origin: string;

  before(async () => {
    server = http.createServer((request, response) => {
      const file = files[request.url ?? ''];
      if (!file) return void response.writeHead(404).end();
      response.writeHead(200, { 'content-type': file[0] }).end(file[1]);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    server?.close();
  });

  it('refuses a page, a dedicated worker and a shared worker', async () => {
    const tab = await browser.newPage();
    const errors: string[] = [];
    tab.on('pageerror', (error) => errors.push(error.message));
    await tab.goto(`${origin}/`);
    const results = await tab.evaluate(() => (window as unknown as { results: Promise<string[]> }).results);
    assert.deepEqual(errors, []);
    assert.deepEqual(results, ['refused', 'refused', 'refused']);
  });
});
