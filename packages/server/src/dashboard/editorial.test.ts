import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AdminArticle, DraftInput, Project } from '@folio/schema';
import { saveDraft } from '../services/drafts.ts';
import { DIALECTS } from '../test/databases.ts';
import { createTestApp, newArticle, paragraph, START_TIME, type TestApp } from '../test/test-app.ts';
import { type DashboardBrowser, signIn } from './test-browser.ts';

const PREVIEW_URL = 'https://www.example.com/api/preview?slug={slug}&token={token}';
const HOUR = 3_600_000;

/** The text of the element with `id` in a page, tags stripped. */
function textOf(page: string, id: string): string {
  const found = new RegExp(`<([a-z]+) [^>]*id="${id}"[^>]*>([\\s\\S]*?)</\\1>`).exec(page);
  return (found?.[2] ?? '')
    .replace(/<[^>]+>/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The state badges of a page or table row, in order. */
function badgesOf(markup: string): string[] {
  const badges = /<span class="badges">([\s\S]*?)<\/span><\/span>/.exec(markup)?.[1] ?? '';
  return [...`${badges}</span>`.matchAll(/<span class="status [a-z]+">([a-z]+)<\/span>/g)].map((m) => m[1]!);
}

for (const dialect of DIALECTS) {
  describe(`dashboard drafts, schedules and preview [${dialect}]`, () => {
    let t: TestApp;
    let browser: DashboardBrowser;
    let project: Project;
    let base: string;
    before(async () => {
      t = await createTestApp(dialect);
      browser = await signIn(t);
    });
    after(() => t.close());

    const deps = () => ({ db: t.db, now: t.clock.now });
    const stored = async (id: string): Promise<AdminArticle> =>
      (await t.admin('GET', `/admin/v1/projects/${project.id}/articles/${id}`)).json().data;
    const draft = (id: string, input: DraftInput) => saveDraft(deps(), project.id, id, input);
    const fresh = async (fields: Parameters<TestApp['createProject']>[0] = {}) => {
      project = await t.createProject(fields);
      base = `/dashboard/projects/${project.id}/articles`;
    };

    test('the article page and the list show each state, and what the draft changes', async () => {
      await fresh();
      await t.putArticle(project.id, 'live', newArticle({ slug: 'live', title: 'Live', published: true }));
      await t.putArticle(project.id, 'off', newArticle({ slug: 'off', title: 'Off' }));
      await t.putArticle(
        project.id,
        'edited',
        newArticle({ slug: 'edited', title: 'Edited', blocks: [paragraph('Served text.')], published: true }),
      );
      await draft('edited', {
        slug: 'edited-v2',
        title: 'Edited <again>',
        blocks: [paragraph('Draft text.')],
      });
      await draft('live', { slug: 'live', title: 'Live', blocks: (await stored('live')).blocks });
      await t.putArticle(project.id, 'plain', newArticle({ slug: 'plain', title: 'Plain', published: true }));

      const page = await browser.get(`${base}/edited`);
      assert.equal(page.statusCode, 200);
      assert.deepEqual(badgesOf(page.body), ['changed']);
      assert.match(page.body, /<h2 id="draft-title">Draft<\/h2>/);
      assert.equal(
        textOf(page.body, 'draft-title-change'),
        'changed from “Edited” to “Edited &lt;again&gt;”',
      );
      assert.doesNotMatch(page.body, /<again>/, 'the draft title is escaped');
      assert.equal(textOf(page.body, 'draft-slug-change'), 'changed from edited to edited-v2');
      assert.equal(
        textOf(page.body, 'draft-blocks-change'),
        'differ from what is served (1 block → 1 block)',
      );
      assert.match(page.body, /aria-label="Publish changes to Edited"/);
      assert.match(page.body, /<p class="muted preview-note">The draft, rendered/);
      assert.match(page.body, /Draft text\./);
      assert.doesNotMatch(page.body, /Served text\./);

      // A draft equal to what is served: everything unchanged, still "changed" until published.
      const same = await browser.get(`${base}/live`);
      assert.deepEqual(badgesOf(same.body), ['changed']);
      assert.equal(textOf(same.body, 'draft-title-change'), 'unchanged');
      assert.equal(textOf(same.body, 'draft-blocks-change'), 'same as what is served');

      const off = await browser.get(`${base}/off`);
      assert.deepEqual(badgesOf(off.body), ['unpublished']);
      assert.doesNotMatch(off.body, /id="draft-title"/);

      const list = await browser.get(base);
      const row = (title: string) =>
        new RegExp(`<tr>\\s*<th scope="row"><a [^>]+>${title}</a>[\\s\\S]*?</tr>`).exec(list.body)?.[0] ?? '';
      assert.deepEqual(badgesOf(row('Edited')), ['changed']);
      assert.deepEqual(badgesOf(row('Off')), ['unpublished']);
      assert.deepEqual(badgesOf(row('Plain')), ['published']);
    });

    test('publish changes serves the draft; discard drops it, and a second discard is refused', async () => {
      await fresh();
      await t.putArticle(project.id, 'a', newArticle({ slug: 'a', title: 'Old', published: true }));
      await draft('a', { slug: 'a', title: 'New', blocks: [] });
      const published = await browser.submit(`${base}/a/publish`, { back: `${base}/a` });
      assert.match(published.body, /Published &quot;New&quot;/);
      assert.deepEqual(badgesOf(published.body), ['published']);
      const served = await stored('a');
      assert.deepEqual([served.title, served.draft], ['New', null]);

      await draft('a', { slug: 'a', title: 'Newer', blocks: [] });
      const page = await browser.get(`${base}/a`);
      assert.match(page.body, /action="[^"]+\/a\/draft\/discard"/);
      assert.match(page.body, /<summary class="button danger small">Discard draft…<\/summary>/);
      const discarded = await browser.submit(`${base}/a/draft/discard`);
      assert.match(discarded.body, /Draft discarded\./);
      assert.deepEqual(badgesOf(discarded.body), ['published']);
      assert.deepEqual([(await stored('a')).title, (await stored('a')).draft], ['New', null]);
      const again = await browser.submit(`${base}/a/draft/discard`);
      assert.match(
        again.body,
        /<p class="form-error" role="alert" id="draft-error">Article &quot;a&quot; has no draft\./,
      );
    });

    test('schedule: a time typed without the script is UTC; the script sends UTC; cancel clears', async () => {
      await fresh();
      await t.putArticle(project.id, 'a', newArticle({ slug: 'a', title: 'Soon' }));
      const page = await browser.get(`${base}/a`);
      assert.match(page.body, /<p class="muted zone-note" data-zone-note>Times are in UTC\.<\/p>/);
      assert.match(page.body, /<label for="publish-at">Publish at /);
      assert.doesNotMatch(page.body, /Cancel schedule/);

      // Without the script: the hidden field is empty, the typed time is read as UTC.
      const noScript = await browser.submit(`${base}/a/schedule`, {
        publishAtLocal: '2026-11-21T09:30',
        publishAt: '',
        unpublishAtLocal: '',
        unpublishAt: '',
      });
      assert.match(noScript.body, /Schedule saved: publishes 2026-11-21 09:30 UTC\./);
      assert.equal((await stored('a')).publishAt, '2026-11-21T09:30:00.000Z');
      assert.deepEqual(badgesOf(noScript.body), ['unpublished', 'scheduled']);
      assert.match(
        noScript.body,
        /Publishes on <span class="zoned"><span class="local-time" data-local-time="2026-11-21T09:30:00.000Z" hidden><\/span> <time datetime="2026-11-21T09:30:00.000Z">2026-11-21 09:30 UTC<\/time>/,
      );
      assert.match(
        noScript.body,
        /id="publish-at" name="publishAtLocal" type="datetime-local" value="2026-11-21T09:30" data-utc="2026-11-21T09:30:00.000Z"/,
      );
      assert.deepEqual(badgesOf(/<tbody>[\s\S]*<\/tbody>/.exec((await browser.get(base)).body)![0]), [
        'unpublished',
        'scheduled',
      ]);

      // With the script: what the viewer typed in their zone arrives as a zoned time.
      const scripted = await browser.submit(`${base}/a/schedule`, {
        publishAtLocal: '2026-11-22T10:00',
        publishAt: '2026-11-22T10:00:00.000+01:00',
        unpublishAtLocal: '2026-12-01T00:00',
        unpublishAt: '2026-11-30T23:00:00.000Z',
      });
      assert.match(scripted.body, /publishes 2026-11-22 09:00 UTC; unpublishes 2026-11-30 23:00 UTC\./);
      const both = await stored('a');
      assert.deepEqual(
        [both.publishAt, both.unpublishAt],
        ['2026-11-22T09:00:00.000Z', '2026-11-30T23:00:00.000Z'],
      );
      assert.match(scripted.body, /Unpublishes on <span class="zoned">/);

      const cancelled = await browser.submit(`${base}/a/schedule/cancel`);
      assert.match(cancelled.body, /Schedule cancelled/);
      assert.match(cancelled.body, /Nothing is scheduled\./);
      assert.deepEqual(badgesOf(cancelled.body), ['unpublished']);
      const none = await stored('a');
      assert.deepEqual([none.publishAt, none.unpublishAt], [null, null]);
    });

    test('schedule: refusals name the fields by their labels and keep what was typed', async () => {
      await fresh();
      await t.putArticle(project.id, 'a', newArticle({ slug: 'a', title: 'Soon' }));
      const backwards = await browser.submit(`${base}/a/schedule`, {
        publishAtLocal: '2026-11-22T10:00',
        publishAt: '',
        unpublishAtLocal: '2026-11-21T10:00',
        unpublishAt: '',
      });
      assert.match(
        backwards.body,
        /id="schedule-error">Unpublish at is earlier than Publish at: an article cannot be unpublished before it is published\.<\/p>/,
      );
      assert.match(backwards.body, /name="publishAtLocal" type="datetime-local" value="2026-11-22T10:00"/);
      assert.match(
        backwards.body,
        /name="unpublishAtLocal" type="datetime-local" value="2026-11-21T10:00"[^>]*aria-describedby="schedule-error"/,
      );
      for (const [fields, why] of [
        [{ publishAtLocal: '2026-02-31T10:00' }, /Publish at must be a date and time/],
        [{ publishAtLocal: 'tomorrow' }, /Publish at must be a date and time/],
        [{ unpublishAt: 'Nov 21 2026' }, /Unpublish at must be a date and time/],
      ] as const) {
        const refused = await browser.submit(`${base}/a/schedule`, fields);
        assert.match(refused.body, why, JSON.stringify(fields));
      }
      const untouched = await stored('a');
      assert.deepEqual([untouched.publishAt, untouched.unpublishAt], [null, null]);
    });

    test('schedule: a time that has passed applies at once', async () => {
      await fresh();
      await t.putArticle(project.id, 'a', newArticle({ slug: 'a', title: 'Late' }));
      const past = new Date(START_TIME - HOUR).toISOString().slice(0, 16);
      const page = await browser.submit(`${base}/a/schedule`, { publishAtLocal: past });
      assert.match(page.body, /Schedule saved: published at once, as 2026-11-20 09:00 UTC has passed\./);
      assert.deepEqual(badgesOf(page.body), ['published']);
      const row = await stored('a');
      assert.deepEqual([row.published, row.publishAt], [true, null]);
    });

    test('preview on site: without a preview URL the page says where to set it', async () => {
      await fresh();
      await t.putArticle(project.id, 'a', newArticle({ slug: 'a', title: 'A' }));
      const page = await browser.get(`${base}/a`);
      assert.doesNotMatch(page.body, /\/preview-link"/);
      assert.match(
        page.body,
        new RegExp(
          `Preview on site needs the site's preview URL: <a href="/dashboard/projects/${project.id}/settings#preview">set it in Settings</a>`,
        ),
      );
      // A form from a page loaded before the URL was removed: refused beside the form.
      const refused = await browser.submit(`${base}/a/preview-link`);
      assert.match(refused.body, /id="preview-error">The project has no preview URL/);
    });

    test('preview on site: the form opens a new tab whose page goes on to a working link', async () => {
      await fresh({ name: 'Previewed' });
      await t.admin('PATCH', `/admin/v1/projects/${project.id}`, { previewUrl: PREVIEW_URL });
      await t.putArticle(project.id, 'a', newArticle({ slug: 'a', title: 'A', published: true }));
      await draft('a', { slug: 'a-next', title: 'A, rewritten', blocks: [] });
      const page = await browser.get(`${base}/a`);
      assert.match(
        page.body,
        /<form method="post" action="[^"]+\/articles\/a\/preview-link" target="_blank" rel="noopener">/,
      );
      assert.match(page.body, />Preview on site<span class="sr-only"> \(opens a new tab\)<\/span><\/button>/);

      const answer = await browser.post(`${base}/a/preview-link`);
      assert.equal(answer.statusCode, 200);
      assert.match(answer.headers['content-type'] as string, /^text\/html/);
      assert.match(answer.headers['content-security-policy'] as string, /form-action 'self'/);
      const href =
        /<a class="button primary" id="preview-link" href="([^"]+)" rel="noopener noreferrer" data-open-preview>/
          .exec(answer.body)![1]!
          .replaceAll('&amp;', '&');
      const url = new URL(href);
      assert.equal(`${url.origin}${url.pathname}`, 'https://www.example.com/api/preview');
      assert.equal(url.searchParams.get('slug'), 'a-next');
      const token = url.searchParams.get('token')!;
      assert.match(token, /^folio_pt_/);
      assert.match(
        answer.body,
        /data-local-time="2026-11-20T11:00:00\.000Z"/,
        'it says when the link expires',
      );
      const read = await t.deliver(token, `/api/v1/projects/${project.id}/content/by-slug/a-next`);
      assert.equal(read.statusCode, 200, read.body);
      assert.equal(read.json().data.title, 'A, rewritten');
    });
  });
}
