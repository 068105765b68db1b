import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DIALECTS } from '../test/databases.ts';
import { createTestApp, newArticle, type TestApp } from '../test/test-app.ts';
import { type DashboardBrowser, signIn } from './test-browser.ts';

/** The fields a refused page marks as wrong, by name, and the refusal's text beside them. */
function marked(page: string): { fields: string[]; message: string | undefined } {
  const fields = [...page.matchAll(/<input [^>]*name="([^"]+)"[^>]*aria-invalid="true"/g)].map((m) => m[1]!);
  const message = /<p class="form-error field-error" role="alert" id="[^"]+">([^<]+)<\/p>/.exec(page)?.[1];
  return { fields, message };
}

for (const dialect of DIALECTS) {
  describe(`dashboard form refusals [${dialect}]`, () => {
    let t: TestApp;
    let browser: DashboardBrowser;
    before(async () => {
      t = await createTestApp(dialect);
      browser = await signIn(t);
    });
    after(() => t.close());

    test('each form names the wrong field by its label, beside it, and marks no other', async () => {
      const project = await t.createProject({ name: 'Forms' });
      const base = `/dashboard/projects/${project.id}`;
      const cases = [
        [`${base}/webhook`, { url: 'not a url' }, ['url'], /^The webhook URL is not an absolute URL\.$/],
        [`${base}/keys`, { name: ' ', kind: 'content' }, ['name'], /^Key name must not be empty\.$/],
        [`${base}/rename`, { name: '' }, ['name'], /^New name must not be empty\.$/],
        ['/dashboard/projects', { name: '', websiteUrl: '' }, ['name'], /^Name must not be empty\.$/],
        [
          '/dashboard/projects',
          { name: 'Fine', articlesPath: '/a?b' },
          ['articlesPath'],
          /^The &quot;Articles live under&quot; path has a segment/,
        ],
        [
          `${base}/settings/preview`,
          { previewUrl: 'https://www.example.com/preview' },
          ['previewUrl'],
          /^Preview URL must contain \{token\}/,
        ],
      ] as const;
      for (const [url, fields, wrong, why] of cases) {
        const page = (await browser.submit(url, fields)).body;
        const { fields: shown, message } = marked(page);
        assert.deepEqual(shown, wrong, url);
        assert.match(message ?? '', why, url);
        assert.doesNotMatch(page, /"success":false/);
      }
    });

    test('a form field holding NUL is refused with 400 and stores nothing, on every database', async () => {
      const project = await t.createProject({ name: 'Nul' });
      const base = `/dashboard/projects/${project.id}`;
      const cases = [
        ['/dashboard/projects', { name: 'a\u0000b' }],
        [`${base}/rename`, { name: 'r\u0000' }],
        [`${base}/keys`, { name: 'k\u0000', kind: 'content' }],
        [`${base}/webhook`, { url: 'https://example.com/\u0000' }],
      ] as const;
      for (const [url, fields] of cases) {
        const answer = await browser.post(url, fields);
        assert.equal(answer.statusCode, 400, `${url}: ${answer.statusCode}`);
        assert.match(answer.headers['content-type'] as string, /^text\/html/);
        assert.match(answer.body, /NUL/);
      }
      const projects = (await t.admin('GET', '/admin/v1/projects')).json().data as { name: string }[];
      assert.ok(!projects.some((p) => p.name.includes('\u0000')), 'no project named with NUL');
      assert.equal((await t.admin('GET', `/admin/v1/projects/${project.id}`)).json().data.name, 'Nul');
      assert.deepEqual((await t.admin('GET', `/admin/v1/projects/${project.id}/keys`)).json().data, []);
      assert.equal((await t.admin('GET', `/admin/v1/projects/${project.id}/webhook`)).json().data.url, null);
    });

    test('a schedule refused for its unpublish time marks that field, not the publish time', async () => {
      const project = await t.createProject({ name: 'Schedules' });
      await t.putArticle(project.id, 'a', newArticle({ slug: 'a' }));
      const page = (
        await browser.submit(`/dashboard/projects/${project.id}/articles/a/schedule`, {
          publishAtLocal: '2026-11-22T10:00',
          unpublishAtLocal: '2026-11-21T10:00',
        })
      ).body;
      const { fields, message } = marked(page);
      assert.deepEqual(fields, ['unpublishAtLocal']);
      assert.match(message ?? '', /^Unpublish at is earlier than Publish at/);
      // The message follows the field it is about.
      assert.match(page, /name="unpublishAt" value="">\s*<p class="form-error field-error"/);
    });

    test('a page showing a refusal says so first in its title; one showing a success does not', async () => {
      const project = await t.createProject({ name: 'Titles' });
      const base = `/dashboard/projects/${project.id}`;
      const title = (page: string) => /<title>([^<]*)<\/title>/.exec(page)?.[1];
      const refused = (await browser.submit(`${base}/keys`, { name: ' ' })).body;
      assert.equal(title(refused), 'Error: Titles: Delivery · Folio dashboard');
      const settings = (await browser.submit(`${base}/settings`, { websiteUrl: 'nope' })).body;
      assert.equal(title(settings), 'Error: Titles: Settings · Folio dashboard');
      const made = (await browser.submit(`${base}/keys`, { name: 'site' })).body;
      assert.equal(title(made), 'Titles: Delivery · Folio dashboard');
      const signIn = await t.app.inject({
        method: 'POST',
        url: '/dashboard/sign-in',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'token=wrong',
      });
      assert.equal(title(signIn.body), 'Error: Sign in · Folio dashboard');
    });

    test('a refusal that names no field stays with the form and marks nothing', async () => {
      const project = await t.createProject({ name: 'No hook' });
      const page = (await browser.submit(`/dashboard/projects/${project.id}/webhook/test`)).body;
      assert.deepEqual(marked(page), { fields: [], message: undefined });
      assert.match(
        page,
        /<p class="form-error" role="alert" id="webhook-actions-error">The project has no webhook URL/,
      );
    });
  });
}
