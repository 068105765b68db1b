import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DIALECTS } from '../test/databases.ts';
import { type Receiver, startReceiver } from '../test/receiver.ts';
import { createTestApp, newArticle, type TestApp } from '../test/test-app.ts';
import { type DashboardBrowser, signIn } from './test-browser.ts';

/** One delivery's row group of the log, and its cells by their labels. */
function deliveryOf(log: string, index = 0) {
  const group = [...log.matchAll(/<tbody class="delivery"[\s\S]*?<\/tbody>/g)][index]?.[0] ?? '';
  const cell = (label: string) => {
    const found = new RegExp(`<td data-label="${label}"[^>]*>([\\s\\S]*?)</td>`).exec(group);
    return (found?.[1] ?? '').replace(/\s+/g, ' ').trim();
  };
  const detail = /<details class="delivery-detail"[\s\S]*?<\/details>/.exec(group)?.[0] ?? '';
  return { group, cell, detail };
}

for (const dialect of DIALECTS) {
  describe(`dashboard delivery log [${dialect}]`, () => {
    let t: TestApp;
    let receiver: Receiver;
    let browser: DashboardBrowser;
    before(async () => {
      t = await createTestApp(dialect, { clockStart: Date.now() });
      receiver = await startReceiver();
      browser = await signIn(t);
    });
    after(async () => {
      await receiver.close();
      await t.close();
    });

    test('a failing delivery shows why, when it is tried next, and its payload and last answer', async () => {
      const project = await t.createProject({ name: 'Hooks' });
      await t.admin('PUT', `/admin/v1/projects/${project.id}/webhook`, { url: receiver.url });
      const answer = `<script>alert(1)</script>${'x'.repeat(600)}`;
      receiver.replies.push({ status: 500, body: answer });
      await t.putArticle(project.id, 'a1', newArticle({ slug: 'first-light', published: true }));
      await t.dispatcher.runOnce();
      const log = (await browser.get(`/dashboard/projects/${project.id}/deliveries`)).body;
      const { cell, detail, group } = deliveryOf(log);

      assert.match(cell('Event'), /^content\.created<br><code class="muted">first-light<\/code>$/);
      assert.match(cell('Status'), /class="status pending">pending</);
      assert.equal(cell('Attempts'), '1');
      assert.equal(cell('Last response'), '500');
      assert.equal(cell('Failure reason'), '<span class="failure">HTTP 500</span>');
      // The test schedule's first retry comes a second after the first attempt.
      const next = new Date(t.clock.now() + 1_000).toISOString();
      assert.match(cell('Next attempt'), new RegExp(`<time datetime="${next}">`));
      // Named by its event, article and time, so a list of the page's buttons tells rows apart.
      const created = new Date(t.clock.now()).toISOString();
      const when = `${created.slice(0, 10)} ${created.slice(11, 19)} UTC`;
      assert.ok(
        group.includes(`aria-label="Retry content.created of first-light, ${when}">Retry</button>`),
        group,
      );

      // The detail: the body as sent, pretty-printed, and the first 500 characters of the answer.
      const sent = receiver.received[0]!;
      const pretty = JSON.stringify(JSON.parse(sent.body), null, 2).replaceAll('"', '&quot;');
      assert.ok(detail.includes(`<code>${pretty}</code>`), detail);
      assert.ok(detail.includes(`<code>webhook-id: ${sent.headers['webhook-id']}</code>`));
      assert.match(detail, /HTTP <strong>500<\/strong> to attempt 1, <time/);
      assert.ok(detail.includes(`<code>&lt;script&gt;alert(1)&lt;/script&gt;${'x'.repeat(475)}…</code>`));
      assert.doesNotMatch(log, /<script>alert/);
      assert.match(detail, new RegExp(`The first 500 of ${answer.length} characters\\.`));
      // Each may scroll: a keyboard reaches it, and it is named for its delivery when reached.
      for (const what of ['Payload of', 'Last response to']) {
        const region = `<pre class="code-block" tabindex="0" role="region" aria-label="${what} content.created of first-light, ${when}">`;
        assert.ok(detail.includes(region), `${what}: ${detail}`);
      }

      // Once due it says so; after the retry succeeds nothing is left to explain.
      t.clock.advance(2_000);
      const due = deliveryOf((await browser.get(`/dashboard/projects/${project.id}/deliveries`)).body);
      assert.equal(due.cell('Next attempt'), 'due now');
      await t.dispatcher.runOnce();
      const done = deliveryOf((await browser.get(`/dashboard/projects/${project.id}/deliveries`)).body);
      assert.match(done.cell('Status'), />succeeded</);
      assert.deepEqual(
        [done.cell('Last response'), done.cell('Failure reason'), done.cell('Next attempt')],
        ['204', '—', '—'],
      );
      assert.match(done.detail, /HTTP <strong>204<\/strong> to attempt 2/);
      assert.match(done.detail, /The body was empty\./);
    });

    test('a delivery whose retries ran out, and one that got no answer, say so', async () => {
      const project = await t.createProject({ name: 'Broken hooks' });
      await t.admin('PUT', `/admin/v1/projects/${project.id}/webhook`, { url: receiver.url });
      receiver.replies.push(...Array.from({ length: 4 }, () => ({ status: 503, body: 'busy' })));
      await t.putArticle(project.id, 'a1', newArticle({ slug: 'gone', published: true }));
      for (let attempt = 0; attempt < 4; attempt++) {
        await t.dispatcher.runOnce();
        t.clock.advance(61_000);
      }
      const failed = deliveryOf((await browser.get(`/dashboard/projects/${project.id}/deliveries`)).body);
      assert.match(failed.cell('Status'), />failed</);
      assert.deepEqual(
        [failed.cell('Attempts'), failed.cell('Failure reason'), failed.cell('Next attempt')],
        ['4', '<span class="failure">HTTP 503</span>', 'none: Retry sends it again'],
      );
      assert.match(failed.detail, /HTTP <strong>503<\/strong> to attempt 4/);

      // Nobody listens on the discard port: the reason is the connection's error, with no status.
      await t.admin('PUT', `/admin/v1/projects/${project.id}/webhook`, { url: 'http://127.0.0.1:9/hook' });
      await t.admin('POST', `/admin/v1/projects/${project.id}/webhook/test`);
      await t.dispatcher.runOnce();
      const refused = deliveryOf((await browser.get(`/dashboard/projects/${project.id}/deliveries`)).body);
      assert.match(refused.cell('Event'), /^webhook\.test$/);
      assert.equal(refused.cell('Last response'), '—');
      assert.match(refused.cell('Failure reason'), /ECONNREFUSED/);
      assert.match(refused.detail, /No answer to attempt 1/);
      assert.match(refused.detail, /<p class="failure">[^<]*ECONNREFUSED/);
    });

    test('the Delivery page holds the same log, and an empty log says how to fill it', async () => {
      const project = await t.createProject({ name: 'Quiet' });
      const page = (await browser.get(`/dashboard/projects/${project.id}`)).body;
      // With no URL yet, Send test event is refused: the empty log names the step before it.
      assert.match(
        page,
        /No deliveries yet\. Once a webhook URL is saved above, <strong>Send test event<\/strong> sends one to it\./,
      );
      await t.admin('PUT', `/admin/v1/projects/${project.id}/webhook`, { url: receiver.url });
      await t.admin('POST', `/admin/v1/projects/${project.id}/webhook/test`);
      const queued = (await browser.get(`/dashboard/projects/${project.id}`)).body;
      const { cell, detail } = deliveryOf(queued);
      assert.equal(cell('Event'), 'webhook.test');
      assert.equal(cell('Failure reason'), '—');
      assert.equal(cell('Next attempt'), 'due now');
      assert.match(
        detail,
        /<summary>Payload and last response<span class="sr-only"> of webhook\.test, \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/,
      );
      assert.match(detail, /Not sent yet\./);
    });

    test('the log pages back through older deliveries, and a retry returns to its page', async () => {
      const project = await t.createProject({ name: 'Busy' });
      const base = `/dashboard/projects/${project.id}`;
      await t.admin('PUT', `/admin/v1/projects/${project.id}/webhook`, { url: receiver.url });
      for (let i = 0; i < 25; i++) {
        assert.equal(
          (await t.admin('POST', `/admin/v1/projects/${project.id}/webhook/test`)).statusCode,
          202,
        );
      }
      const rows = (page: string) => [...page.matchAll(/<tbody class="delivery"/g)].length;

      const first = (await browser.get(base)).body;
      assert.equal(rows(first), 20);
      assert.match(first, /Deliveries 1–20 of 25, newest first\./);
      assert.ok(
        first.includes(`<a href="${base}?log=2#log-title" rel="next">Older</a>`),
        'a way to the rest',
      );
      assert.ok(first.includes(`data-refresh="${base}/deliveries"`));
      // A named section is a landmark: twenty named "Payload" would each be listed alike.
      const landmarks = [...first.matchAll(/<section[^>]* aria-label="([^"]*)"/g)].map((found) => found[1]);
      assert.equal(new Set(landmarks).size, landmarks.length, `repeated landmark names: ${landmarks}`);

      const second = (await browser.get(`${base}?log=2`)).body;
      assert.equal(rows(second), 5);
      // Each page of the log has a title of its own, for tabs and history.
      const title = (page: string) => /<title>([^<]*)<\/title>/.exec(page)?.[1];
      assert.equal(title(first), 'Busy: Delivery · Folio dashboard');
      assert.equal(title(second), 'Busy: Delivery · Log page 2 · Folio dashboard');
      assert.match(second, /Deliveries 21–25 of 25/);
      assert.ok(second.includes(`<a href="${base}#log-title" rel="prev">Newer</a>`));
      // The live refresh reloads the page shown, not the first.
      assert.ok(second.includes(`data-refresh="${base}/deliveries?page=2"`));
      assert.equal(rows((await browser.get(`${base}/deliveries?page=2`)).body), 5);
      // The oldest delivery, out of the first page's reach, can be retried, back on its page.
      const oldest = /data-delivery="([^"]+)"/g.exec(
        second.slice(second.lastIndexOf('<tbody class="delivery"')),
      )![1]!;
      const retry = await browser.post(`${base}/webhook/deliveries/${oldest}/retry`, { log: '2' });
      assert.equal(retry.statusCode, 303);
      assert.equal(retry.headers.location, `${base}?log=2#log-title`);
      // Past the end (a stale link): the last page.
      assert.equal(rows((await browser.get(`${base}?log=9`)).body), 5);
    });

    test('rotate says whether an old secret keeps signing: only one that was revealed does', async () => {
      const project = await t.createProject({ name: 'Secrets' });
      const base = `/dashboard/projects/${project.id}`;
      await t.admin('PUT', `/admin/v1/projects/${project.id}/webhook`, { url: receiver.url });
      const first = (await browser.submit(`${base}/webhook/rotate`)).body;
      assert.match(first, /deliveries are signed with it from now on/);
      const second = (await browser.submit(`${base}/webhook/rotate`)).body;
      assert.match(second, /the previous one keeps signing for 24 hours/);
    });
  });
}
