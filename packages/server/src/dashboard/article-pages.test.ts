import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Article } from '@folio/schema';
import { saveDraft } from '../services/drafts.ts';
import { DIALECTS } from '../test/databases.ts';
import { createTestApp, newArticle, paragraph, TEST_BASE_URL, type TestApp } from '../test/test-app.ts';
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

function titleOf(page: string): string | undefined {
  return /<title>([^<]*)<\/title>/.exec(page)?.[1];
}

/** The hidden fields of the form posting to `action` in a page, as a browser sends them. */
function hiddenFields(page: string, action: string): Record<string, string> {
  const form = new RegExp(`<form method="post" action="${action}">([\\s\\S]*?)</form>`).exec(page);
  assert.ok(form, `a form posting to ${action}`);
  const inputs = form[1]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g);
  return Object.fromEntries([...inputs].map(([, name, value]) => [name!, unescapeHtml(value!)]));
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

    test('a search for text no title can hold (NUL) finds nothing, on every database', async () => {
      const project = await t.createProject();
      await t.putArticle(project.id, 'n1', newArticle({ slug: 'n1', title: 'Nothing odd' }));
      const list = `/dashboard/projects/${project.id}/articles`;
      for (const q of ['%00', 'Nothing%00odd']) {
        const answer = await browser.get(`${list}?q=${q}`);
        assert.equal(answer.statusCode, 200, q);
        assert.match(answer.body, /0 articles with “/, q);
      }
    });

    test('the article page shows SEO, Open Graph, JSON-LD and related links as served, and View on site', async () => {
      const project = await t.createProject({ websiteUrl: 'https://www.example.com', articlesPath: '/blog' });
      const key = await t.createKey(project.id);
      await t.putArticle(
        project.id,
        'r1',
        newArticle({ slug: 'older', title: 'Older post', published: true }),
      );
      await t.putArticle(project.id, 'a1', {
        ...newArticle({ slug: 'spring-café', title: 'Spring <sale>', published: true }),
        blocks: [paragraph('Everything is half price this week.')],
        seo: {
          ogImage: 'https://cdn.example.com/spring.png',
          jsonLd: { '@type': 'Offer', name: '</script><script>alert(1)</script>' },
        },
        related: ['older', 'not-yet'],
      });
      const page = (await browser.get(`/dashboard/projects/${project.id}/articles/a1`)).body;
      const served = (
        await t.deliver(key, `/api/v1/projects/${project.id}/content/by-slug/spring-caf%C3%A9`)
      ).json().data as Article;

      assert.match(page, /<h2 id="seo-title">SEO and sharing<\/h2>/);
      assert.match(page, /As the delivery API serves it to content keys\./);
      assert.equal(textOf(page, 'seo-title-value'), served.seo.title);
      assert.equal(textOf(page, 'seo-description'), 'Everything is half price this week.');
      assert.equal(textOf(page, 'seo-canonical'), 'https://www.example.com/blog/spring-caf%C3%A9');
      assert.equal(textOf(page, 'og-title'), served.seo.ogTitle);
      assert.equal(textOf(page, 'og-description'), served.seo.ogDescription);
      assert.match(
        textOf(page, 'og-image'),
        /^https:\/\/cdn\.example\.com\/spring\.png \(not loaded here\)$/,
      );
      // Pretty-printed and escaped: the markup in the value stays text.
      assert.equal(textOf(page, 'json-ld'), JSON.stringify(served.seo.jsonLd, null, 2));
      // It scrolls, so a keyboard can reach it, and it is named when reached.
      assert.match(
        page,
        /<pre class="code-block" id="json-ld" tabindex="0" role="region" aria-label="JSON-LD">/,
      );
      assert.doesNotMatch(page, /<script>alert/);
      assert.match(page, /&lt;\/script&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
      // Related: the published one the author named, linked to its page here; not the missing one.
      assert.deepEqual(
        served.related.map((link) => link.slug),
        ['older'],
      );
      assert.match(
        page,
        new RegExp(
          `<ol class="related-links" id="related-links"><li><a href="/dashboard/projects/${project.id}/articles/r1">Older post</a> <code class="muted">/blog/older</code></li></ol>`,
        ),
      );
      assert.match(
        page,
        /<a class="button small secondary" id="view-on-site" href="https:\/\/www\.example\.com\/blog\/spring-caf%C3%A9" target="_blank" rel="noopener noreferrer">View on site/,
      );
    });

    test("an article's page names its project in the title; its code blocks and tables are regions to scroll", async () => {
      const project = await t.createProject();
      const article = newArticle({ slug: 'two-codes' });
      await t.putArticle(project.id, 'c1', {
        ...article,
        blocks: [
          { type: 'code', id: 'first', language: 'ts', code: 'const tide = "low";' },
          { type: 'code', language: 'a b', code: '<b>not markup</b>' },
          { type: 'table', headers: ['Tide', 'Height'], rows: [['low', '0.4 m']] },
        ],
      });
      const page = (await browser.get(`/dashboard/projects/${project.id}/articles/c1`)).body;
      assert.equal(titleOf(page), `${article.title}: Article · ${project.name} · Folio dashboard`);
      const regions = [...page.matchAll(/<pre[^>]*>/g)].map(([tag]) => tag);
      assert.deepEqual(regions.slice(-2), [
        '<pre id="first" tabindex="0" role="region" aria-label="Code example 1 (ts)">',
        '<pre tabindex="0" role="region" aria-label="Code example 2">',
      ]);
      assert.match(page, /<code class="language-ts">const tide = &quot;low&quot;;<\/code>/);
      assert.match(page, /<code>&lt;b&gt;not markup&lt;\/b&gt;<\/code>/);
      assert.match(
        page,
        /<div class="table-scroll" tabindex="0" role="region" aria-label="Table 1"><table><thead>/,
      );
    });

    test('a draft shows what publishing would serve; View on site keeps the served address', async () => {
      const project = await t.createProject({ websiteUrl: 'https://www.example.com' });
      await t.putArticle(
        project.id,
        'a1',
        newArticle({ slug: 'live', title: 'Live title', published: true }),
      );
      await t.putArticle(project.id, 'u1', newArticle({ slug: 'hidden', title: 'Hidden one' }));
      await saveDraft({ db: t.db, now: t.clock.now }, project.id, 'a1', {
        slug: 'renamed',
        title: 'Draft title',
        blocks: [],
        seo: { description: 'Said by the draft.' },
        related: ['hidden'],
      });
      const page = (await browser.get(`/dashboard/projects/${project.id}/articles/a1`)).body;
      assert.match(page, /The draft&#39;s, as publishing it will serve them/);
      assert.equal(textOf(page, 'seo-title-value'), 'Draft title');
      assert.equal(textOf(page, 'seo-description'), 'Said by the draft.');
      assert.equal(textOf(page, 'seo-canonical'), 'https://www.example.com/renamed');
      assert.match(textOf(page, 'related-links'), /^Hidden one \/hidden$/);
      assert.match(page, /content keys get only the published ones/);
      assert.match(page, /id="view-on-site" href="https:\/\/www\.example\.com\/live"/);

      // Unpublished: nothing to view on the site yet.
      const hidden = (await browser.get(`/dashboard/projects/${project.id}/articles/u1`)).body;
      assert.match(
        hidden,
        /As publishing the article will serve them; content keys get nothing until then\./,
      );
      assert.doesNotMatch(hidden, /View on site/);
    });

    test('a page past the end of the list shows the last page, and keeps an action message', async () => {
      const project = await t.createProject();
      for (const id of ['s1', 's2']) {
        await t.putArticle(project.id, id, newArticle({ slug: `stale-${id}`, title: `Stale ${id}` }));
      }
      const stale = `/dashboard/projects/${project.id}/articles?q=Stale&page=9`;
      const listed = (await browser.get(stale)).body;
      assert.match(listed, /Stale s1/);
      assert.match(listed, /Stale s2/);

      // Deleting from a page that is gone by then: the list and its message, not an empty page.
      const landed = await browser.submit(`/dashboard/projects/${project.id}/articles/s1/delete`, {
        back: stale,
      });
      assert.equal(landed.statusCode, 200);
      assert.match(landed.body, /Deleted &quot;Stale s1&quot;\./);
      assert.match(landed.body, /Stale s2/);
    });

    test('unpublish and delete, confirmed in a search on a later page, return to that page and search', async () => {
      const project = await t.createProject({ name: 'Shore' });
      for (let i = 1; i <= 52; i++) {
        await t.putArticle(
          project.id,
          `r${i}`,
          newArticle({ slug: `rock-${i}`, title: `Rock pool ${i}`, published: true }),
        );
      }
      await t.putArticle(project.id, 'other', newArticle({ slug: 'other', title: 'Lighthouse' }));
      const list = `/dashboard/projects/${project.id}/articles`;
      const page = `${list}?q=Rock+pool&page=2`;
      const shown = (await browser.get(page)).body;
      assert.equal(titleOf(shown), 'Shore: Articles · Search “Rock pool” · Page 2 · Folio dashboard');
      const [first, second] = [...shown.matchAll(/<a href="[^"]+\/articles\/(r\d+)">/g)].map((m) => m[1]!);
      for (const [id, action] of [
        [first, 'unpublish'],
        [second, 'delete'],
      ] as const) {
        const url = `${list}/${id}/${action}`;
        // Behind a disclosure that asks first, as a browser without the script shows it.
        assert.match(
          shown,
          new RegExp(
            `<details class="confirm">\\s*<summary[^>]*>[^<]+<span class="sr-only"> “Rock pool \\d+”</span></summary>\\s*<form method="post" action="${url}">`,
          ),
        );
        const sent = await browser.post(url, hiddenFields(shown, url));
        assert.equal(sent.statusCode, 303);
        assert.equal(sent.headers.location, page, action);
      }
      const stored = (id: string) => t.admin('GET', `/admin/v1/projects/${project.id}/articles/${id}`);
      assert.equal((await stored(first!)).json().data.published, false);
      assert.equal((await stored(second!)).statusCode, 404);
    });

    test('without a website URL, the page says where to set it and shows the path alone', async () => {
      const project = await t.createProject();
      await t.putArticle(project.id, 'a1', newArticle({ slug: 'plain', published: true }));
      const page = (await browser.get(`/dashboard/projects/${project.id}/articles/a1`)).body;
      assert.doesNotMatch(page, /id="view-on-site"/);
      assert.match(
        page,
        new RegExp(
          `View on site needs the website URL: <a href="/dashboard/projects/${project.id}/settings#site">set it in Settings</a>`,
        ),
      );
      assert.match(textOf(page, 'seo-canonical'), /^\/plain \(the path: with a website URL in Settings/);
    });

    test("a deleted article's page leads back to its project's articles, not to the projects", async () => {
      const project = await t.createProject();
      await t.putArticle(project.id, 'gone', newArticle({ slug: 'gone' }));
      await t.admin('DELETE', `/admin/v1/projects/${project.id}/articles/gone`);
      const page = await browser.get(`/dashboard/projects/${project.id}/articles/gone`);
      assert.equal(page.statusCode, 404);
      assert.match(page.body, /<h1>Not found<\/h1>/);
      // A stale link (a bookmark, a tab open while someone deleted it) ends where the list is.
      assert.match(
        page.body,
        new RegExp(`<a href="/dashboard/projects/${project.id}/articles">Back to articles</a>`),
      );
    });

    test('the Connection card links the API reference the server serves', async () => {
      const project = await t.createProject();
      const page = (await browser.get(`/dashboard/projects/${project.id}`)).body;
      assert.match(page, /the <a href="\/docs">API reference<\/a>/);
      assert.equal((await t.app.inject({ method: 'GET', url: '/docs' })).statusCode, 200);
    });
  });
}
