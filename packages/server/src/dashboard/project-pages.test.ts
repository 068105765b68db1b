import assert from 'node:assert/strict';
import { describe, type TestContext, test } from 'node:test';
import type { DialectName } from '../db/connect.ts';
import { DIALECTS } from '../test/databases.ts';
import { createTestApp } from '../test/test-app.ts';
import { signIn } from './test-browser.ts';

/** The projects a Projects page lists, by name, in the order shown. */
function namesOf(page: string): string[] {
  return [
    ...page.matchAll(/<li class="project">\s*<div class="project-head">\s*<h3><a [^>]+>([^<]+)<\/a>/g),
  ].map((match) => match[1]!);
}

function titleOf(page: string): string | undefined {
  return /<title>([^<]*)<\/title>/.exec(page)?.[1];
}

/** The page navigation's link marked `rel`, if the page has one. */
function pagerLink(page: string, rel: 'prev' | 'next'): string | undefined {
  return new RegExp(`<a href="([^"]+)" rel="${rel}">`).exec(page)?.[1]?.replaceAll('&amp;', '&');
}

/**
 * An app of its own holding `Tenant 01` … `Tenant nn` alone, so each page's contents are exact;
 * made a second apart, so the list's order is the order they were made.
 */
async function appWithTenants(count: number, context: TestContext, dialect: DialectName) {
  const t = await createTestApp(dialect);
  context.after(() => t.close());
  for (let i = 1; i <= count; i++) {
    await t.createProject({ name: `Tenant ${String(i).padStart(2, '0')}` });
    t.clock.advance(1_000);
  }
  const browser = await signIn(t);
  return { t, browser };
}

const expected = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `Tenant ${String(from + i).padStart(2, '0')}`);

for (const dialect of DIALECTS) {
  describe(`dashboard projects page [${dialect}]`, () => {
    test('a few projects fit on one page, oldest first, with no page navigation', async (context) => {
      const { browser } = await appWithTenants(3, context, dialect);
      const page = (await browser.get('/dashboard')).body;
      assert.deepEqual(namesOf(page), expected(1, 3));
      assert.doesNotMatch(page, /class="pager"/);
      assert.equal(titleOf(page), 'Projects · Folio dashboard');
    });

    test('many projects: a page of 50 with a link to the next; the last page links back', async (context) => {
      const { browser } = await appWithTenants(53, context, dialect);
      const first = (await browser.get('/dashboard')).body;
      assert.deepEqual(namesOf(first), expected(1, 50));
      assert.match(first, /<nav aria-label="Pages" class="pager">/);
      assert.match(first, /<span>Page 1 of 2<\/span>/);
      assert.equal(pagerLink(first, 'next'), '/dashboard?page=2');
      assert.equal(pagerLink(first, 'prev'), undefined);
      assert.match(first, /<h2 id="create-title">Create a project<\/h2>/, 'the create form stays');

      const last = (await browser.get('/dashboard?page=2')).body;
      assert.deepEqual(namesOf(last), expected(51, 53));
      assert.match(last, /<span>Page 2 of 2<\/span>/);
      assert.equal(pagerLink(last, 'prev'), '/dashboard');
      assert.equal(pagerLink(last, 'next'), undefined);
      assert.equal(titleOf(last), 'Projects · Page 2 · Folio dashboard');
    });

    test('a malformed page is the first page; one past the end is the last page', async (context) => {
      const { browser } = await appWithTenants(51, context, dialect);
      for (const page of ['abc', '0', '-1', '', '1.5', '%20']) {
        const shown = await browser.get(`/dashboard?page=${page}`);
        assert.equal(shown.statusCode, 200, page);
        assert.deepEqual(namesOf(shown.body), expected(1, 50), page);
        assert.match(shown.body, /<span>Page 1 of 2<\/span>/, page);
      }
      for (const page of ['3', '99999999999']) {
        const shown = await browser.get(`/dashboard?page=${page}`);
        assert.equal(shown.statusCode, 200, page);
        assert.deepEqual(namesOf(shown.body), ['Tenant 51'], page);
        assert.match(shown.body, /<span>Page 2 of 2<\/span>/, page);
      }
    });

    test('the project created last is reached by following Next from the first page', async (context) => {
      const { t, browser } = await appWithTenants(100, context, dialect);
      const newest = await t.createProject({ name: 'Newest' });
      let url: string | undefined = '/dashboard';
      let page = '';
      const seen: string[] = [];
      while (url) {
        page = (await browser.get(url)).body;
        seen.push(...namesOf(page));
        url = pagerLink(page, 'next');
      }
      assert.match(page, /<span>Page 3 of 3<\/span>/);
      assert.equal(seen.length, 101, 'every project once');
      assert.equal(seen.at(-1), 'Newest');
      assert.ok(page.includes(`href="/dashboard/projects/${newest.id}"`));
    });

    test('renaming a project on a later page returns to that page with the outcome', async (context) => {
      const { t, browser } = await appWithTenants(52, context, dialect);
      const id = (await t.admin('GET', '/admin/v1/projects?limit=100')).json().data.at(-1).id as string;
      const page = (await browser.get('/dashboard?page=2')).body;
      const hidden = new RegExp(
        `<form method="post" action="/dashboard/projects/${id}/rename" class="inline">\\s*<input type="hidden" name="csrf" value="[^"]+">\\s*<input type="hidden" name="page" value="2">`,
      );
      assert.match(page, hidden, 'the form says which page it is on');
      const renamed = await browser.post(`/dashboard/projects/${id}/rename`, { name: 'Renamed', page: '2' });
      assert.equal(renamed.headers.location, '/dashboard?page=2');
      const back = (await browser.get('/dashboard?page=2')).body;
      assert.deepEqual(namesOf(back), ['Tenant 51', 'Renamed']);
      assert.match(back, /Renamed to &quot;Renamed&quot;\./);

      const refused = await browser.post(`/dashboard/projects/${id}/rename`, { name: ' ', page: '2' });
      assert.equal(refused.headers.location, '/dashboard?page=2');
      assert.match(
        (await browser.get('/dashboard?page=2')).body,
        /id="rename-[^"]+-error">New name must not be empty/,
      );
      const elsewhere = await browser.post(`/dashboard/projects/${id}/rename`, { name: 'X', page: '//evil' });
      assert.equal(elsewhere.headers.location, '/dashboard', 'only a page number is taken');
    });
  });
}
