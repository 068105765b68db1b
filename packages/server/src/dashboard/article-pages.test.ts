import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DIALECTS } from '../test/databases.ts';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../test/test-app.ts';
import { type DashboardBrowser, signIn } from './test-browser.ts';

/** The text of the element with `id` in a page: tags stripped, entities of the escaper undone. */
function textOf(page: string, id: string): string {
  const found = new RegExp(`<([a-z]+) [^>]*id="${id}"[^>]*>([\\s\\S]*?)</\\1>`).exec(page);
  return unescapeHtml((found?.[2] ?? '').replace(/<[^>]+>/g, ''));
}

function unescapeHtml(text: string): string {
  return text
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&');
}

for (const dialect of DIALECTS) {
  describe(`dashboard article pages [${dialect}]`, () => {
    let t: TestApp;
    let browser: DashboardBrowser;
    before(async () => {
      t = await createTestApp(dialect);
      browser = await signIn(t);
    });
    after(() => t.close());

    test('an empty Articles page gives a PUT that works as pasted, the import line and the example', async () => {
      const project = await t.createProject({ name: 'Empty' });
      const list = `/dashboard/projects/${project.id}/articles`;
      const empty = (await browser.get(list)).body;
      assert.match(empty, /<h3>No articles yet: add the first one<\/h3>/);
      assert.doesNotMatch(empty, /role="search"/, 'nothing to search yet');
      assert.equal(textOf(empty, 'import-line'), `npx folio import articles.ndjson --project ${project.id}`);
      assert.match(empty, /<a href="\/public\/v1\/fixtures\/article">example article<\/a>/);
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/public/v1/fixtures/article' })).statusCode,
        200,
      );

      // The curl line, as a shell would run it: its URL, headers and body.
      const curl = textOf(empty, 'put-article');
      const url = /^curl -X PUT "([^"]+)" \\\n/.exec(curl)?.[1] ?? '';
      assert.equal(url, `${TEST_BASE_URL}/admin/v1/projects/${project.id}/articles/hello-world`);
      assert.match(curl, /-H "Authorization: Bearer \$FOLIO_ADMIN_TOKEN" \\\n/);
      assert.match(curl, /-H "Content-Type: application\/json" \\\n/);
      const body = JSON.parse(/-d '([^']+)'$/.exec(curl)?.[1] ?? 'null');
      const put = await t.admin('PUT', new URL(url).pathname, body);
      assert.equal(put.statusCode, 201, put.body);
      const key = await t.createKey(project.id);
      const served = await t.deliver(key, `/api/v1/projects/${project.id}/content/by-slug/hello-world`);
      assert.equal(served.json().data.title, 'Hello, world');

      const filled = (await browser.get(list)).body;
      assert.doesNotMatch(filled, /id="no-articles"/);
      assert.match(filled, /role="search"/);
      const none = (await browser.get(`${list}?q=nothing`)).body;
      assert.match(none, /0 articles with “nothing” in the title/);
      assert.doesNotMatch(none, /id="no-articles"/, 'a search with no match is not an empty project');
    });
  });
}
