import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { buildApp } from '../app.ts';
import { createMetrics } from '../http/metrics.ts';
import { resolveAdminCredential } from '../services/admin-auth.ts';
import { DIALECTS } from '../test/databases.ts';
import { startReceiver } from '../test/receiver.ts';
import { ADMIN_TOKEN, createTestApp, newArticle, type TestApp } from '../test/test-app.ts';
import { sessionCookie } from './http.ts';
import { SESSION_LIFETIME_MS } from './session.ts';
import { FORM, form, sessionCookieOf, signIn } from './test-browser.ts';

const PREVIEW_URL = 'https://www.example.com/api/preview?slug={slug}&token={token}';

for (const dialect of DIALECTS) {
  describe(`dashboard session [${dialect}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect);
    });
    after(() => t.close());
    const signInWith = (token: string) =>
      t.app.inject({ method: 'POST', url: '/dashboard/sign-in', headers: FORM, payload: form({ token }) });

    test('a wrong token shows an error on the sign-in page and sets no cookie', async () => {
      const response = await signInWith('not-the-token');
      assert.equal(response.statusCode, 401);
      assert.match(response.headers['content-type'] as string, /^text\/html/);
      const refusal = /id="token-error">([^<]*)</.exec(response.body)?.[1] ?? '';
      assert.match(refusal, /^That is not the admin token\./);
      // The way back names both sources of the token, and that a reset token works only once
      // the server restarts (as the start-up banner says): told only to reset, an operator whose
      // server reads FOLIO_ADMIN_TOKEN, or who has not restarted, is refused again.
      assert.match(refusal, /FOLIO_ADMIN_TOKEN/);
      assert.match(refusal, /npx folio admin-token reset/);
      assert.match(refusal, /restart/);
      assert.equal(sessionCookieOf(response), undefined);
      assert.doesNotMatch(response.body, /not-the-token/);
    });

    test('forms are taken only as application/x-www-form-urlencoded: a JSON body is 415, never a 500', async () => {
      for (const token of [ADMIN_TOKEN, [ADMIN_TOKEN], 123, { a: 1 }]) {
        const response = await t.app.inject({
          method: 'POST',
          url: '/dashboard/sign-in',
          headers: { ...FORM, 'content-type': 'application/json' },
          payload: JSON.stringify({ token }),
        });
        assert.equal(response.statusCode, 415, JSON.stringify(token));
        assert.match(response.headers['content-type'] as string, /^text\/html/);
        assert.match(response.body, /Dashboard forms are sent as application\/x-www-form-urlencoded/);
        assert.equal(sessionCookieOf(response), undefined);
      }
    });

    test("a site's key pasted in by mistake is named as one", async () => {
      const projectId = (await t.createProject()).id;
      const key = await t.createKey(projectId);
      const response = await signInWith(key);
      assert.equal(response.statusCode, 401);
      assert.match(response.body, /That is a key that sites read articles with, not the admin token\./);
      assert.equal(sessionCookieOf(response), undefined);
      assert.ok(!response.body.includes(key), 'the key is not shown back');
    });

    test('the right token gives an HttpOnly, SameSite=Strict cookie under /dashboard, without Secure on http', async () => {
      const response = await signInWith(ADMIN_TOKEN);
      assert.equal(response.statusCode, 303);
      assert.equal(response.headers.location, '/dashboard');
      const cookie = sessionCookieOf(response)!;
      assert.match(cookie, /; HttpOnly/);
      assert.match(cookie, /; SameSite=Strict/);
      assert.match(cookie, /; Path=\/dashboard/);
      assert.match(cookie, new RegExp(`; Max-Age=${SESSION_LIFETIME_MS / 1000}`));
      assert.doesNotMatch(cookie, /Secure/);
      assert.ok(!cookie.includes(ADMIN_TOKEN));
    });

    test('a HEAD of a page without a session redirects to sign-in, as its GET does', async () => {
      const project = await t.createProject();
      for (const url of ['/dashboard', `/dashboard/projects/${project.id}/articles?q=a`]) {
        const get = await t.app.inject({ method: 'GET', url });
        const head = await t.app.inject({ method: 'HEAD', url });
        assert.equal(get.statusCode, 303, url);
        assert.equal(head.statusCode, get.statusCode, url);
        assert.equal(head.headers.location, get.headers.location, url);
        assert.equal(head.body, '');
      }
    });

    test('pages need a session: GET redirects to sign-in, POST and the log fragment answer 401', async () => {
      const page = await t.app.inject({ method: 'GET', url: '/dashboard' });
      assert.equal(page.statusCode, 303);
      assert.equal(page.headers.location, '/dashboard/sign-in');
      const project = await t.createProject();
      const fragment = await t.app.inject({
        method: 'GET',
        url: `/dashboard/projects/${project.id}/deliveries`,
      });
      assert.equal(fragment.statusCode, 401);
      const post = await t.app.inject({
        method: 'POST',
        url: '/dashboard/projects',
        headers: FORM,
        payload: form({ name: 'x' }),
      });
      assert.equal(post.statusCode, 401);
      const forged = await t.app.inject({
        method: 'GET',
        url: '/dashboard',
        headers: { cookie: `folio_session=${'a'.repeat(43)}` },
      });
      assert.equal(forged.statusCode, 303);
    });

    test('sign-in returns to the page asked for, or to the page of a refused form', async () => {
      const project = await t.createProject();
      const asked = `/dashboard/projects/${project.id}/articles?q=a+b`;
      const away = await t.app.inject({ method: 'GET', url: asked });
      assert.equal(away.statusCode, 303);
      const signInUrl = away.headers.location as string;
      assert.equal(new URL(signInUrl, 'http://x').searchParams.get('next'), asked);
      const page = await t.app.inject({ method: 'GET', url: signInUrl });
      assert.match(
        page.body,
        new RegExp(`<input type="hidden" name="next" value="${asked.replace(/[?+]/g, '\\$&')}">`),
      );

      // A wrong token keeps the way back; the right one takes it.
      const wrong = await t.app.inject({
        method: 'POST',
        url: '/dashboard/sign-in',
        headers: FORM,
        payload: form({ token: 'not-the-token', next: asked }),
      });
      assert.equal(wrong.statusCode, 401);
      assert.match(wrong.body, /name="next" value="\/dashboard\/projects\//);
      const back = await t.app.inject({
        method: 'POST',
        url: '/dashboard/sign-in',
        headers: FORM,
        payload: form({ token: ADMIN_TOKEN, next: asked }),
      });
      assert.equal(back.statusCode, 303);
      assert.equal(back.headers.location, asked);

      // A form posted after the session ended: not sent, and sign-in leads back to its page.
      const settings = `/dashboard/projects/${project.id}/settings`;
      const refused = await t.app.inject({
        method: 'POST',
        url: `${settings}/site`,
        headers: { ...FORM, referer: `http://folio.test${settings}` },
        payload: form({ websiteUrl: 'https://example.com' }),
      });
      assert.equal(refused.statusCode, 401);
      assert.match(refused.body, /the form was not sent/);
      const link = new URL(
        /<a href="([^"]+)">Sign in<\/a>/.exec(refused.body)![1]!.replaceAll('&amp;', '&'),
        'http://x',
      );
      assert.equal(link.pathname, '/dashboard/sign-in');
      assert.equal(link.searchParams.get('next'), settings);
    });

    test('sign-in returns only to a dashboard page of this server', async () => {
      for (const next of [
        '//evil.example/dashboard',
        '/\\evil.example/dashboard',
        'https://evil.example/dashboard',
        '/dashboard/..//evil.example',
        '/dashboard/../admin/v1/projects',
        '/dashboardx',
        '/dashboard/sign-out',
        'dashboard/projects',
      ]) {
        const answer = await t.app.inject({
          method: 'POST',
          url: '/dashboard/sign-in',
          headers: FORM,
          payload: form({ token: ADMIN_TOKEN, next }),
        });
        assert.equal(answer.statusCode, 303, next);
        assert.equal(answer.headers.location, '/dashboard', next);
      }
      const signedIn = await signIn(t);
      const again = await t.app.inject({
        method: 'GET',
        url: `/dashboard/sign-in?next=${encodeURIComponent('//evil.example')}`,
        headers: { cookie: signedIn.cookie },
      });
      assert.equal(again.headers.location, '/dashboard');
    });

    test('the admin token never appears in a page, and the sign-in page has no token in it', async () => {
      const browser = await signIn(t);
      const project = await t.createProject({ name: 'Token check' });
      for (const url of [
        '/dashboard',
        `/dashboard/projects/${project.id}`,
        `/dashboard/projects/${project.id}/articles`,
        `/dashboard/projects/${project.id}/settings`,
      ]) {
        const page = await browser.get(url);
        assert.equal(page.statusCode, 200, url);
        assert.ok(!page.body.includes(ADMIN_TOKEN), url);
      }
      const signInPage = await t.app.inject({ method: 'GET', url: '/dashboard/sign-in' });
      assert.match(signInPage.body, /<form method="post" action="\/dashboard\/sign-in" class="stack">/);
      assert.match(signInPage.body, /type="password"/);
    });

    test('a POST without the CSRF token, with a wrong one, or from another origin is refused', async () => {
      const browser = await signIn(t);
      const before = (await t.admin('GET', '/admin/v1/projects')).json().data.length;
      const missing = await t.app.inject({
        method: 'POST',
        url: '/dashboard/projects',
        headers: { ...FORM, cookie: browser.cookie },
        payload: form({ name: 'No token' }),
      });
      assert.equal(missing.statusCode, 403);
      const wrong = await browser.post('/dashboard/projects', { name: 'Wrong token', csrf: 'x'.repeat(43) });
      assert.equal(wrong.statusCode, 403);
      const crossOrigin = await browser.post(
        '/dashboard/projects',
        { name: 'Elsewhere' },
        { origin: 'https://evil.example' },
      );
      assert.equal(crossOrigin.statusCode, 403);
      const crossSite = await browser.post(
        '/dashboard/projects',
        { name: 'Elsewhere' },
        { 'sec-fetch-site': 'cross-site' },
      );
      assert.equal(crossSite.statusCode, 403);
      assert.equal(
        (await t.admin('GET', '/admin/v1/projects')).json().data.length,
        before,
        'nothing was created',
      );
      const sameOrigin = await browser.post(
        '/dashboard/projects',
        { name: 'Same origin' },
        { origin: 'http://localhost:80' },
      );
      assert.equal(sameOrigin.statusCode, 303);
      // Behind a proxy that ends TLS the request is http; the page's origin is the public one.
      const proxied = await browser.post(
        '/dashboard/projects',
        { name: 'Proxied' },
        { origin: 'http://folio.test' },
      );
      assert.equal(proxied.statusCode, 303);
    });

    test("a stale form's refusal links back to the form's page, since reloading re-sends the stale form", async () => {
      const browser = await signIn(t);
      const project = await t.createProject({ name: 'Stale' });
      const page = `/dashboard/projects/${project.id}`;
      const stale = await browser.post(
        `${page}/keys`,
        { name: 'k', csrf: 'x'.repeat(43) },
        { referer: `http://localhost${page}?log=2` },
      );
      assert.equal(stale.statusCode, 403);
      // The refused answer is that of a POST: reloading it posts the same stale token again.
      assert.doesNotMatch(stale.body, /Reload the page/);
      assert.match(stale.body, new RegExp(`<a href="${page}\\?log=2">Back to the form</a>`));
      // Without a Referer, the projects.
      const nowhere = await browser.post(`${page}/keys`, { name: 'k', csrf: 'x'.repeat(43) });
      assert.match(nowhere.body, /<a href="\/dashboard">Back to projects<\/a>/);
    });

    test('the cookie is Secure when the request came over https or the public address is https', () => {
      // inject cannot make an encrypted socket; request.protocol is what Fastify derives from one.
      const over = (protocol: string, origin = 'http://localhost:8080') =>
        sessionCookie({ protocol } as FastifyRequest, 'id', 60, origin);
      assert.match(over('https'), /; Secure$/);
      assert.doesNotMatch(over('http'), /Secure/);
      assert.match(over('http', 'https://folio.example.com'), /; Secure$/, 'behind a proxy that ends TLS');
    });

    test('sign out ends the session on the server: the old cookie no longer opens a page', async () => {
      const browser = await signIn(t);
      const out = await browser.post('/dashboard/sign-out');
      assert.equal(out.statusCode, 303);
      assert.match(sessionCookieOf(out)!, /Max-Age=0/);
      const after = await browser.get('/dashboard');
      assert.equal(after.statusCode, 303);
      assert.equal(after.headers.location, '/dashboard/sign-in');
    });

    /** The dashboard as another server on the same database, taking `token`, shows to `cookie`. */
    const dashboardOfServerWith = async (token: string | undefined, cookie: string) => {
      const app = await buildApp({
        db: t.db,
        baseUrl: 'http://folio.test',
        adminCredential: await resolveAdminCredential({ db: t.db, now: t.clock.now }, token),
        now: t.clock.now,
      });
      try {
        return await app.inject({ method: 'GET', url: '/dashboard', headers: { cookie } });
      } finally {
        await app.close();
      }
    };

    test('a session survives a restart: another app on the same database knows it', async () => {
      const browser = await signIn(t);
      assert.equal((await dashboardOfServerWith(ADMIN_TOKEN, browser.cookie)).statusCode, 200);
    });

    test('a new admin token closes the sessions the old one opened', async () => {
      const browser = await signIn(t);
      // FOLIO_ADMIN_TOKEN changed, or unset so the stored (generated) token opens the server.
      for (const token of ['a-new-admin-token-0123456789', undefined]) {
        const refused = await dashboardOfServerWith(token, browser.cookie);
        assert.equal(refused.statusCode, 303, `token ${token}`);
        assert.equal(refused.headers.location, '/dashboard/sign-in');
      }
      const opened = await dashboardOfServerWith(ADMIN_TOKEN, browser.cookie);
      assert.equal(opened.statusCode, 200, 'the token it was opened with');
    });

    test('signing in again replaces the previous session', async () => {
      const browser = await signIn(t);
      const again = await t.app.inject({
        method: 'POST',
        url: '/dashboard/sign-in',
        headers: { ...FORM, cookie: browser.cookie },
        payload: form({ token: ADMIN_TOKEN }),
      });
      assert.equal(again.statusCode, 303);
      assert.notEqual(sessionCookieOf(again)!.split(';')[0], browser.cookie);
      assert.equal((await browser.get('/dashboard')).statusCode, 303, 'the old session is gone');
    });

    test('an unknown dashboard address answers an HTML 404 page', async () => {
      const browser = await signIn(t);
      for (const url of [
        '/dashboard/nowhere',
        '/dashboard/projects/prj_missing',
        '/dashboard/projects/prj_missing/articles',
        '/dashboard/projects/prj_missing/settings',
        // Names every object has are no assets either.
        '/dashboard/assets/constructor',
        '/dashboard/assets/__proto__',
        '/dashboard/assets/toString',
      ]) {
        const page = await browser.get(url);
        assert.equal(page.statusCode, 404, url);
        assert.match(page.headers['content-type'] as string, /^text\/html/, url);
        assert.match(page.body, /<h1>Not found<\/h1>/, url);
      }
    });

    test('a session expires after its lifetime', async () => {
      const browser = await signIn(t);
      assert.equal((await browser.get('/dashboard')).statusCode, 200);
      t.clock.advance(SESSION_LIFETIME_MS);
      assert.equal((await browser.get('/dashboard')).statusCode, 303);
    });

    test('the database holds only a hash of the session id', async () => {
      const browser = await signIn(t);
      const id = browser.cookie.split('=')[1]!;
      const rows = await t.db.selectFrom('dashboard_sessions').select('id_hash').execute();
      assert.ok(rows.length > 0);
      assert.ok(rows.every((row) => row.id_hash !== id && /^[0-9a-f]{64}$/.test(row.id_hash)));
    });

    test('pages are HTML with a strict content security policy and no caching', async () => {
      const browser = await signIn(t);
      const page = await browser.get('/dashboard');
      assert.match(page.headers['content-security-policy'] as string, /default-src 'none'/);
      assert.equal(page.headers['cache-control'], 'no-store');
      assert.match(page.body, /<main id="main"/);
      const openapi = (await t.app.inject({ method: 'GET', url: '/public/v1/openapi.json' })).json();
      assert.deepEqual(
        Object.keys(openapi.paths).filter((path) => path.startsWith('/dashboard')),
        [],
        'dashboard pages are not in the API document',
      );
      const css = await t.app.inject({ method: 'GET', url: '/dashboard/assets/dashboard.css' });
      assert.equal(css.statusCode, 200);
      assert.match(css.headers['content-type'] as string, /^text\/css/);
    });
  });

  describe(`dashboard pages [${dialect}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect);
    });
    after(() => t.close());

    test('create and rename a project; a refused name is shown next to the form, not as JSON', async () => {
      const browser = await signIn(t);
      const created = await browser.submit('/dashboard/projects', { name: 'My blog', articlesPath: 'blog' });
      assert.match(created.body, /Project &quot;My blog&quot; created/);
      const id = /Project id<\/dt><dd><span class="copyable"><code id="project-id">([^<]+)</.exec(
        created.body,
      )![1]!;
      const renamed = await browser.submit(`/dashboard/projects/${id}/rename`, { name: 'Renamed <blog>' });
      assert.match(renamed.body, /Renamed to &quot;Renamed &lt;blog&gt;&quot;/);
      const refused = await browser.submit('/dashboard/projects', { name: 'x', websiteUrl: 'ftp://nope' });
      // The refusal uses the form's label and sits beside the one field it names.
      assert.match(
        refused.body,
        /name="websiteUrl" type="url" value="ftp:\/\/nope" aria-invalid="true" aria-describedby="create-error">\s*<p class="form-error field-error" role="alert" id="create-error">Website URL must use http or https\./,
      );
      assert.equal(refused.body.match(/aria-invalid="true"/g)?.length, 1, 'only the wrong field is marked');
      assert.doesNotMatch(refused.body, /"success":false/);
    });

    test('a content key is shown once; the list shows its prefix; revoke stops it working', async () => {
      const browser = await signIn(t);
      const project = await t.createProject();
      const page = await browser.submit(`/dashboard/projects/${project.id}/keys`, { name: 'site' });
      const key = /<code id="new-key">(folio_ck_[^<]+)</.exec(page.body)![1]!;
      assert.match(page.body, /you will not see it again/);
      // The outcome comes before the key, so it is read, and its Copy button reached, first.
      const said = page.body.indexOf('Content key &quot;site&quot; created.');
      assert.ok(said > 0 && said < page.body.indexOf(key), 'the outcome precedes the key');
      assert.equal((await t.deliver(key, `/api/v1/projects/${project.id}/content`)).statusCode, 200);
      const again = await browser.get(`/dashboard/projects/${project.id}`);
      assert.ok(!again.body.includes(key), 'the key is gone on reload');
      assert.ok(again.body.includes(key.slice(0, 15)), 'its prefix is listed');
      const keyId = (await t.admin('GET', `/admin/v1/projects/${project.id}/keys`)).json().data[0].id;
      const revoked = await browser.submit(`/dashboard/projects/${project.id}/keys/${keyId}/revoke`);
      assert.match(revoked.body, /Key revoked/);
      assert.equal((await t.deliver(key, `/api/v1/projects/${project.id}/content`)).statusCode, 401);
    });

    test('webhook: a refused URL is explained by the form; reveal shows the secret; test needs a URL', async () => {
      const browser = await signIn(t);
      const project = await t.createProject();
      const test = await browser.submit(`/dashboard/projects/${project.id}/webhook/test`);
      assert.match(test.body, /id="webhook-actions-error">The project has no webhook URL/);
      const bad = await browser.submit(`/dashboard/projects/${project.id}/webhook`, { url: 'not a url' });
      assert.match(bad.body, /id="webhook-error">/);
      const saved = await browser.submit(`/dashboard/projects/${project.id}/webhook`, {
        url: 'http://127.0.0.1:9/hook',
      });
      assert.match(saved.body, /Webhook URL saved/);
      // Whether deliveries are signed is said once, under Signing secret, not again in the state.
      const webhookCard = saved.body.slice(saved.body.indexOf('id="webhook-title"'));
      assert.match(webhookCard, /<p class="muted">Each change is sent to this URL\.<\/p>/);
      assert.equal(webhookCard.match(/unsigned/g)?.length, 1, 'one line says deliveries are unsigned');
      const revealed = await browser.submit(`/dashboard/projects/${project.id}/webhook/reveal`);
      const secret = /<code id="signing-secret">(whsec_[^<]+)</.exec(revealed.body)![1]!;
      const said = revealed.body.indexOf('Signing secret revealed');
      assert.ok(said > 0 && said < revealed.body.indexOf(secret), 'the outcome precedes the secret');
      const viaApi = await t.admin('POST', `/admin/v1/projects/${project.id}/webhook/reveal-secret`);
      assert.equal(viaApi.json().data.secret, secret);
      const queued = await browser.submit(`/dashboard/projects/${project.id}/webhook/test`);
      assert.match(queued.body, /Test event queued/);
      const log = await browser.get(`/dashboard/projects/${project.id}/deliveries`);
      assert.match(log.body, /webhook\.test/);
      assert.match(log.body, /class="status pending"/);
      assert.doesNotMatch(log.body, /<html/);
    });

    test('the Delivery page has Connection, Content API keys and Webhook, and sends site settings to Settings', async () => {
      const browser = await signIn(t);
      const project = await t.createProject({ name: 'No site yet' });
      const page = await browser.get(`/dashboard/projects/${project.id}`);
      const headings = [...page.body.matchAll(/<h2 id="[^"]+">([^<]+)<\/h2>/g)].map((m) => m[1]);
      assert.deepEqual(headings, ['Connection', 'Content API keys', 'Webhook', 'Last hour']);
      assert.doesNotMatch(page.body, /Site and URLs<\/h2>|name="articlesPath"|name="websiteUrl"/);
      const settings = `/dashboard/projects/${project.id}/settings`;
      assert.ok(
        page.body.includes(`<li><a href="${settings}">Settings</a></li>`),
        'Settings is in the navigation',
      );
      assert.match(
        page.body,
        new RegExp(
          `The sitemap needs a website URL: <a href="${settings}#site">set it under Site and URLs</a>`,
        ),
      );
      await t.admin('PATCH', `/admin/v1/projects/${project.id}`, { websiteUrl: 'https://www.example.com' });
      const withUrl = await browser.get(`/dashboard/projects/${project.id}`);
      assert.doesNotMatch(withUrl.body, /sitemap needs a website URL/);
    });

    test('Settings, Site and URLs: saves the website URL and the articles path', async () => {
      const browser = await signIn(t);
      const project = await t.createProject({ websiteUrl: 'https://www.example.com' });
      await t.putArticle(project.id, 'a1', newArticle({ slug: 'first-post' }));
      const settings = `/dashboard/projects/${project.id}/settings`;
      const before = await browser.get(settings);
      assert.match(before.body, /<h2 id="site-title">Site and URLs<\/h2>/);
      assert.match(before.body, /<a href="[^"]+\/settings" aria-current="page">Settings<\/a>/);
      assert.match(before.body, /<label for="website-url">Website URL </);
      assert.match(before.body, /<label for="articles-path">Articles live under </);
      assert.match(before.body, /id="example-canonical-path">\/first-post</);

      const page = await browser.submit(settings, {
        articlesPath: '/news/',
        websiteUrl: 'https://blog.example.org/',
      });
      assert.match(page.body, /Site settings saved\./);
      assert.match(page.body, /<h1>Settings /);
      assert.match(page.body, /id="website-url" name="websiteUrl" [^>]*value="https:\/\/blog\.example\.org"/);
      assert.match(page.body, /id="articles-path" name="articlesPath" value="\/news"/);
      assert.match(page.body, /id="example-canonical-path">\/news\/first-post</);
      assert.match(page.body, /id="example-sitemap-url">https:\/\/blog\.example\.org\/news\/first-post</);
      const stored = (await t.admin('GET', `/admin/v1/projects/${project.id}`)).json().data;
      assert.equal(stored.websiteUrl, 'https://blog.example.org');
      assert.equal(stored.articlesPath, '/news');

      const cleared = await browser.submit(settings, { articlesPath: '', websiteUrl: '' });
      assert.match(cleared.body, /id="example-canonical-path">\/first-post</);
      assert.match(cleared.body, /set a Website URL: the sitemap needs one/);
      const after = (await t.admin('GET', `/admin/v1/projects/${project.id}`)).json().data;
      assert.deepEqual([after.websiteUrl, after.articlesPath], [null, '']);
    });

    test('Settings, Site and URLs: a bad website URL or path is refused next to the form, nothing saved', async () => {
      const browser = await signIn(t);
      const project = await t.createProject({ websiteUrl: 'https://www.example.com', articlesPath: '/blog' });
      const settings = `/dashboard/projects/${project.id}/settings`;
      for (const [websiteUrl, why] of [
        ['not a url', /^Website URL must be an absolute URL/],
        ['ftp://www.example.com', /^Website URL must use http or https/],
        ['https://www.example.com/blog', /^Website URL must be an origin without a path/],
      ] as const) {
        const refused = await browser.submit(settings, { articlesPath: '/journal', websiteUrl });
        assert.match(refused.body, /<h1>Settings /, websiteUrl);
        // Beside the Website URL field, which alone is marked; what was typed is kept in both.
        const error =
          /name="websiteUrl" type="url" [^>]*aria-invalid="true" aria-describedby="site-error">\s*<p class="form-error field-error" role="alert" id="site-error">([^<]+)<\/p>/.exec(
            refused.body,
          );
        assert.match(error?.[1] ?? '', why, websiteUrl);
        assert.ok(
          refused.body.includes(`value="${websiteUrl}" aria-invalid="true"`),
          'what was typed is kept',
        );
        assert.match(refused.body, /name="articlesPath" value="\/journal">/);
        assert.equal(refused.body.match(/aria-invalid="true"/g)?.length, 1, websiteUrl);
        assert.doesNotMatch(refused.body, /Site settings saved/);
      }
      const refusedPath = await browser.submit(settings, { articlesPath: '/a b', websiteUrl: '' });
      assert.match(
        refusedPath.body,
        /name="articlesPath" value="\/a b" aria-invalid="true" aria-describedby="site-error">\s*<p class="form-error field-error" role="alert" id="site-error">The &quot;Articles live under&quot; path has a segment/,
      );
      assert.match(refusedPath.body, /name="websiteUrl" type="url" [^>]*value="">/);
      const stored = (await t.admin('GET', `/admin/v1/projects/${project.id}`)).json().data;
      assert.deepEqual([stored.websiteUrl, stored.articlesPath], ['https://www.example.com', '/blog']);
    });

    test('Settings: the form posted from an older Delivery page still saves, and lands on Settings', async () => {
      const browser = await signIn(t);
      const project = await t.createProject();
      const answer = await browser.post(`/dashboard/projects/${project.id}/site`, {
        articlesPath: '/notes',
        websiteUrl: 'https://notes.example.com',
      });
      assert.equal(answer.statusCode, 303);
      assert.equal(answer.headers.location, `/dashboard/projects/${project.id}/settings`);
      const stored = (await t.admin('GET', `/admin/v1/projects/${project.id}`)).json().data;
      assert.deepEqual([stored.websiteUrl, stored.articlesPath], ['https://notes.example.com', '/notes']);
      const noCsrf = await t.app.inject({
        method: 'POST',
        url: `/dashboard/projects/${project.id}/settings`,
        headers: { ...FORM, cookie: browser.cookie },
        payload: form({ articlesPath: '/stolen' }),
      });
      assert.equal(noCsrf.statusCode, 403);
      const onlyUrl = await browser.submit(`/dashboard/projects/${project.id}/settings`, {
        websiteUrl: 'https://other.example.com',
      });
      assert.match(onlyUrl.body, /Site settings saved/);
      const kept = (await t.admin('GET', `/admin/v1/projects/${project.id}`)).json().data;
      assert.deepEqual([kept.websiteUrl, kept.articlesPath], ['https://other.example.com', '/notes']);
    });

    test('Settings, Preview on site: saves the preview URL, refuses a bad one by its label, empty removes it', async () => {
      const browser = await signIn(t);
      const project = await t.createProject();
      await t.putArticle(project.id, 'a', newArticle({ slug: 'first-post' }));
      const settings = `/dashboard/projects/${project.id}/settings`;
      const before = await browser.get(settings);
      assert.match(before.body, /<h2 id="preview-title">Preview on site<\/h2>/);
      assert.match(before.body, /<label for="preview-url">Preview URL </);

      const saved = await browser.submit(`${settings}/preview`, { previewUrl: PREVIEW_URL });
      assert.match(saved.body, /Preview URL saved\./);
      assert.match(
        saved.body,
        /id="preview-url" name="previewUrl" [^>]*value="https:\/\/www\.example\.com\/api\/preview\?slug=\{slug\}&amp;token=\{token\}"/,
      );
      assert.match(
        saved.body,
        /<code id="example-preview-url">https:\/\/www\.example\.com\/api\/preview\?slug=first-post&amp;token=folio_pt_…<\/code>/,
      );
      assert.equal(
        (await t.admin('GET', `/admin/v1/projects/${project.id}`)).json().data.previewUrl,
        PREVIEW_URL,
      );

      for (const [typedUrl, why] of [
        ['https://www.example.com/preview?slug={slug}', /Preview URL must contain \{token\}/],
        ['ftp://www.example.com/{token}', /Preview URL must use http or https/],
      ] as const) {
        const refused = await browser.submit(`${settings}/preview`, { previewUrl: typedUrl });
        const error =
          /<p class="form-error field-error" role="alert" id="preview-url-error">([^<]+)<\/p>/.exec(
            refused.body,
          );
        assert.match(error?.[1] ?? '', why, typedUrl);
        assert.ok(
          refused.body.includes(
            `value="${typedUrl}" aria-invalid="true" aria-describedby="preview-url-error"`,
          ),
        );
      }
      assert.equal(
        (await t.admin('GET', `/admin/v1/projects/${project.id}`)).json().data.previewUrl,
        PREVIEW_URL,
      );

      const removed = await browser.submit(`${settings}/preview`, { previewUrl: ' ' });
      assert.match(removed.body, /Preview URL removed\./);
      assert.equal((await t.admin('GET', `/admin/v1/projects/${project.id}`)).json().data.previewUrl, null);
    });

    test('keys: a preview key is made beside content keys, marked as such, and reads drafts', async () => {
      const browser = await signIn(t);
      const project = await t.createProject();
      await t.putArticle(project.id, 'a', newArticle({ slug: 'a', title: 'Served', published: true }));
      await t.admin('PUT', `/admin/v1/projects/${project.id}/articles/a/draft`, {
        slug: 'a',
        title: 'Drafted',
        blocks: [],
      });
      const delivery = `/dashboard/projects/${project.id}`;
      const page = await browser.get(delivery);
      assert.match(page.body, /<input type="radio" name="kind" value="content" checked> <span>Content key/);
      assert.match(page.body, /<input type="radio" name="kind" value="preview"> <span>Preview key/);

      const created = await browser.submit(`${delivery}/keys`, { name: 'server render', kind: 'preview' });
      assert.match(created.body, /Preview key &quot;server render&quot; created\./);
      assert.match(created.body, /<strong>Your new preview key\.<\/strong>/);
      const key = /<code id="new-key">(folio_pk_[^<]+)</.exec(created.body)![1]!;
      const read = await t.deliver(key, `/api/v1/projects/${project.id}/content/by-slug/a`);
      assert.deepEqual([read.json().data.title, read.json().data.status], ['Drafted', 'changed']);

      const content = await browser.submit(`${delivery}/keys`, { name: 'site', kind: 'content' });
      assert.match(content.body, /<code id="new-key">folio_ck_/);
      const kinds = [
        ...content.body.matchAll(
          /<th scope="row">([^<]+)<\/th>\s*<td data-label="Kind"><span class="status [a-z]+">([a-z]+)<\/span>/g,
        ),
      ];
      assert.deepEqual(kinds.map((m) => [m[1], m[2]]).sort(), [
        ['server render', 'preview'],
        ['site', 'content'],
      ]);
      const refused = await browser.submit(`${delivery}/keys`, { name: 'odd', kind: 'admin' });
      assert.match(refused.body, /id="keys-error">Kind must be a content key or a preview key\./);
      assert.match(
        refused.body,
        /<input type="radio" name="kind" value="content" checked aria-invalid="true" aria-describedby="keys-error">/,
      );
      assert.match(refused.body, /id="key-name" name="name" [^>]*value="odd">/, 'the name is not marked');
      assert.equal((await t.admin('GET', `/admin/v1/projects/${project.id}/keys`)).json().data.length, 2);
    });

    test('articles: search by title, publish, unpublish, delete, and a preview rendered safely', async () => {
      const browser = await signIn(t);
      const project = await t.createProject();
      await t.putArticle(project.id, 'a1', newArticle({ title: 'Spring 100% sale', slug: 'spring' }));
      await t.putArticle(
        project.id,
        'a2',
        newArticle({ title: 'Autumn notes', slug: 'autumn', published: true }),
      );
      await t.putArticle(
        project.id,
        'a3',
        newArticle({
          title: 'Hostile <script>alert(1)</script>',
          slug: 'hostile',
          blocks: [
            {
              type: 'paragraph',
              content: [{ text: '<img src=x onerror=alert(2)>' }],
            },
          ],
        }),
      );
      const base = `/dashboard/projects/${project.id}/articles`;
      const all = await browser.get(base);
      assert.match(all.body, /3 articles/);
      const found = await browser.get(`${base}?q=${encodeURIComponent('SPRING 100%')}`);
      assert.match(found.body, /1 article with/);
      assert.match(found.body, /Spring 100% sale/);
      assert.equal(
        (await browser.get(`${base}?q=_`)).body.match(/<tbody>/) === null,
        true,
        'an underscore matches itself',
      );

      const published = await browser.submit(`${base}/a1/publish`, { back: base });
      assert.match(published.body, /Published &quot;Spring 100% sale&quot;/);
      assert.equal(
        (await t.admin('GET', `/admin/v1/projects/${project.id}/articles/a1`)).json().data.published,
        true,
      );
      await browser.submit(`${base}/a1/unpublish`, { back: 'https://evil.example/' });
      assert.equal(
        (await t.admin('GET', `/admin/v1/projects/${project.id}/articles/a1`)).json().data.published,
        false,
      );

      const preview = await browser.get(`${base}/a3`);
      assert.equal(preview.statusCode, 200);
      assert.match(preview.body, /Hostile &lt;script&gt;alert\(1\)&lt;\/script&gt;/);
      assert.doesNotMatch(preview.body, /<script>alert|<img src=x/);
      assert.match(preview.body, /&lt;img src=x onerror=alert\(2\)&gt;/);

      const deleted = await browser.submit(`${base}/a3/delete`, { back: `${base}/a3` });
      assert.match(deleted.body, /Deleted &quot;Hostile/);
      assert.equal((await t.admin('GET', `/admin/v1/projects/${project.id}/articles/a3`)).statusCode, 404);
      const gone = await browser.get(`${base}/a3`);
      assert.equal(gone.statusCode, 404);
      assert.match(gone.headers['content-type'] as string, /^text\/html/);
    });
  });

  describe(`dashboard last hour [${dialect}]`, () => {
    /** The Last hour card of a project's page, and its figures in order as [label, value]. */
    const lastHourOf = (page: string) => {
      const card = /<section class="card" id="traffic"[\s\S]*?<\/section>/.exec(page)?.[0] ?? '';
      const figures = [...card.matchAll(/<dt>([^<]+)<\/dt><dd>([\d,]+)/g)].map((m) => [m[1], Number(m[2])]);
      return { card, figures };
    };

    test("a project's page shows the server's last hour from the metrics, and its own deliveries", async () => {
      const metrics = createMetrics();
      const t = await createTestApp(dialect, { metrics, clockStart: Date.now() });
      const receiver = await startReceiver();
      after(async () => {
        await receiver.close();
        await t.close();
      });
      const browser = await signIn(t);
      const project = await t.createProject({ name: 'Busy' });
      const quiet = await t.createProject({ name: 'Quiet' });
      const key = await t.createKey(project.id);
      await t.admin('PUT', `/admin/v1/projects/${project.id}/webhook`, { url: receiver.url });
      receiver.replies.push({ status: 500 }, { status: 204 });
      await t.putArticle(project.id, 'a1', newArticle({ slug: 'hello', published: true }));
      for (const slug of ['hello', 'hello', 'missing']) {
        await t.deliver(key, `/api/v1/projects/${project.id}/content/by-slug/${slug}`);
      }
      await t.dispatcher.runOnce();
      // The test schedule's first retry comes after a second.
      t.clock.advance(2_000);
      await t.dispatcher.runOnce();

      const counted = metrics.totals();
      assert.ok(counted.errors >= 1 && counted.cacheHits >= 1, JSON.stringify(counted));
      const { card, figures } = lastHourOf((await browser.get(`/dashboard/projects/${project.id}`)).body);
      assert.match(card, /<h2 id="traffic-title">Last hour<\/h2>/);
      assert.match(card, /This server process, all projects/);
      assert.deepEqual(figures, [
        ['Requests', counted.requests],
        ['Errors', counted.errors],
        ['Cache hits', counted.cacheHits],
        ['Succeeded', 1],
        ['Retried', 1],
        ['Failed', 0],
        ['Succeeded', 1],
        ['Pending', 0],
        ['Failed', 0],
      ]);
      const hitRate = Math.round((counted.cacheHits / (counted.cacheHits + counted.cacheMisses)) * 100);
      assert.match(card, new RegExp(`${hitRate}% hit rate`));
      assert.match(card, /<svg [^>]*role="img" aria-label="Requests per minute/);
      assert.match(card, /<rect class="bar-error"/);
      assert.match(card, /<rect class="bar-ok"/);
      assert.match(card, /<rect class="bar-retry"/);
      assert.match(card, /1 succeeded, 1 retried, 0 failed<\/title>/);

      // The counters are the server's; the delivery log part is the project's own.
      const other = lastHourOf((await browser.get(`/dashboard/projects/${quiet.id}`)).body).figures;
      assert.deepEqual(other.slice(3), [
        ['Succeeded', 1],
        ['Retried', 1],
        ['Failed', 0],
        ['Succeeded', 0],
        ['Pending', 0],
        ['Failed', 0],
      ]);
    });

    test('the Last hour card refreshes as the log beside it does, from a fragment of its own', async () => {
      const t = await createTestApp(dialect);
      const receiver = await startReceiver();
      after(async () => {
        await receiver.close();
        await t.close();
      });
      const browser = await signIn(t);
      const project = await t.createProject();
      await t.admin('PUT', `/admin/v1/projects/${project.id}/webhook`, { url: receiver.url });
      await browser.submit(`/dashboard/projects/${project.id}/webhook/test`);
      const { card } = lastHourOf((await browser.get(`/dashboard/projects/${project.id}`)).body);
      // Left as the page was made, it said Pending 1 while the refreshed log said succeeded.
      const live = /data-refresh="([^"]+)"/.exec(card)?.[1];
      assert.equal(live, `/dashboard/projects/${project.id}/traffic`);
      receiver.replies.push({ status: 204 });
      await t.dispatcher.runOnce();
      const fragment = await browser.get(live!);
      assert.equal(fragment.statusCode, 200);
      assert.doesNotMatch(fragment.body, /<html|<section/);
      const figures = [...fragment.body.matchAll(/<dt>([^<]+)<\/dt><dd>([\d,]+)/g)].map((m) => [
        m[1],
        Number(m[2]),
      ]);
      assert.deepEqual(figures.slice(-3), [
        ['Succeeded', 1],
        ['Pending', 0],
        ['Failed', 0],
      ]);
      // Signed out, the fragment is refused as the log's is, and the log alone says so.
      assert.equal((await t.app.inject({ method: 'GET', url: live! })).statusCode, 401);
      // Only the project's own fragments: an article of that id is a page, which redirects.
      const article = `/dashboard/projects/${project.id}/articles/traffic`;
      assert.equal((await t.app.inject({ method: 'GET', url: article })).statusCode, 303);
      assert.match(card, /data-refresh-quiet/);
    });

    test('the last hour leaves out deliveries created more than an hour ago', async () => {
      const t = await createTestApp(dialect);
      after(() => t.close());
      const browser = await signIn(t);
      const project = await t.createProject();
      await t.admin('PUT', `/admin/v1/projects/${project.id}/webhook`, { url: 'http://127.0.0.1:9/hook' });
      await browser.submit(`/dashboard/projects/${project.id}/webhook/test`);
      const page = async () => lastHourOf((await browser.get(`/dashboard/projects/${project.id}`)).body);
      assert.deepEqual((await page()).figures.slice(-3), [
        ['Succeeded', 0],
        ['Pending', 1],
        ['Failed', 0],
      ]);
      t.clock.advance(3_600_001);
      assert.deepEqual((await page()).figures.slice(-3), [
        ['Succeeded', 0],
        ['Pending', 0],
        ['Failed', 0],
      ]);
    });
  });
}
