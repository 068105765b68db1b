import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { DIALECTS } from '../test/databases.ts';
import { startReceiver } from '../test/receiver.ts';
import { REDIS_URL, redisAvailable } from '../test/redis.ts';
import { ADMIN_TOKEN, createTestApp, newArticle, type TestApp } from '../test/test-app.ts';
import { createMetrics } from './metrics.ts';
import { createRateLimits } from './rate-limits.ts';

/*
 * Rate limits and metrics count every answer, the fast path's cached answers included: these
 * tests go through a real socket, since `inject` enters behind the fast path.
 */

const opened: TestApp[] = [];
after(async () => {
  for (const t of opened.splice(0)) await t.close();
});

async function appWith(
  dialect: (typeof DIALECTS)[number],
  budgets: {
    perCredential?: { points: number; seconds: number };
    authFailures?: { points: number; seconds: number };
    redisUrl?: string;
  },
): Promise<TestApp> {
  const rateLimits = await createRateLimits({
    perCredential: budgets.perCredential,
    authFailures: budgets.authFailures ?? { points: 30, seconds: 60 },
    ...(budgets.redisUrl ? { redisUrl: budgets.redisUrl } : {}),
  });
  const t = await createTestApp(dialect, { rateLimits, trustProxy: true });
  opened.push(t);
  return t;
}

/** A project with one published article and a key; the article's read is in the cache. */
async function published(t: TestApp): Promise<{ key: string; path: string }> {
  const project = await t.createProject();
  const key = await t.createKey(project.id);
  await t.putArticle(project.id, 'a1', newArticle({ slug: 'hello', published: true }));
  const path = `/api/v1/projects/${project.id}/content/by-slug/hello`;
  assert.equal((await t.deliver(key, path)).statusCode, 200);
  return { key, path };
}

const bearer = (token: string, address = '203.0.113.10') => ({
  headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': address },
});

for (const dialect of DIALECTS) {
  describe(`rate limits over HTTP (${dialect})`, () => {
    test('a key spends its budget on cached answers too, then gets 429 with Retry-After', async () => {
      const t = await appWith(dialect, { perCredential: { points: 3, seconds: 60 } });
      const { key, path } = await published(t);
      const hitsBefore = t.app.fastPathHits();
      const statuses: number[] = [];
      let last: Response | undefined;
      // The warm-up read above spent one request of the budget.
      for (let i = 0; i < 3; i++) {
        last = await t.fetch(path, bearer(key));
        statuses.push(last.status);
        if (last.status === 200) {
          assert.equal(last.headers.get('ratelimit-policy'), '"default";q=3;w=60');
          assert.match(last.headers.get('ratelimit') ?? '', /^"default";r=\d+;t=\d+$/);
        }
        await last.arrayBuffer();
      }
      assert.deepEqual(statuses, [200, 200, 429]);
      assert.ok(t.app.fastPathHits() - hitsBefore >= 1, 'cached answers were given by the fast path');
      const refused = await last!.json().catch(() => undefined);
      assert.equal(last!.headers.get('content-type')?.startsWith('application/json'), true);
      assert.match(last!.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/);
      assert.equal(refused, undefined, 'body was read above');
      const again = await t.fetch(path, bearer(key));
      assert.equal(again.status, 429);
      assert.equal(((await again.json()) as { error: { code: string } }).error.code, 'rate_limited');
    });

    test('the admin token has a budget of its own', async () => {
      const t = await appWith(dialect, { perCredential: { points: 2, seconds: 60 } });
      const statuses = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await t.fetch('/admin/v1/projects', bearer(ADMIN_TOKEN))).status);
      assert.deepEqual(statuses, [200, 200, 429]);
    });

    test('past its failed authentications an address gets 429 everywhere, valid key or not; others do not', async () => {
      const t = await appWith(dialect, { authFailures: { points: 3, seconds: 60 } });
      const { key, path } = await published(t);
      const guesser = '198.51.100.7';
      for (let i = 0; i < 3; i++) {
        assert.equal((await t.fetch(path, bearer('folio_ck_wrong', guesser))).status, 401);
      }
      // Counted after each answer: give the last count a moment.
      await new Promise((resolve) => setTimeout(resolve, 20));
      const refused = await t.fetch(path, bearer(key, guesser));
      assert.equal(refused.status, 429);
      assert.match(refused.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/);
      assert.equal((await t.fetch('/admin/v1/projects', bearer(ADMIN_TOKEN, guesser))).status, 429);
      assert.equal((await t.fetch('/metrics', bearer(ADMIN_TOKEN, guesser))).status, 429);
      // The dashboard answers in HTML, but says when to come back as the APIs do.
      const page = await t.fetch('/dashboard/sign-in', bearer(key, guesser));
      assert.equal(page.status, 429);
      assert.match(page.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/);
      const text = await page.text();
      assert.match(text, /Too many attempts/);
      // Its way on is the sign-in page, for when the wait is over: not one that leads back to it.
      assert.match(text, /<p><a href="\/dashboard\/sign-in">Sign in<\/a><\/p>/);
      // Its stylesheet needs no credential, so it is not refused.
      assert.equal((await t.fetch('/dashboard/assets/dashboard.css', bearer(key, guesser))).status, 200);
      assert.equal((await t.fetch(path, bearer(key, '198.51.100.8'))).status, 200, 'another address');
      // Public routes carry no credential, and stay open.
      assert.equal((await t.fetch('/healthz', bearer('x', guesser))).status, 200);
    });

    test('an address locked out through another server on the same Redis is refused here', {
      skip: !redisAvailable,
    }, async () => {
      const budgets = { authFailures: { points: 2, seconds: 60 }, redisUrl: REDIS_URL };
      const one = await appWith(dialect, budgets);
      const two = await appWith(dialect, budgets);
      // An address of its own in a shared Redis.
      const guesser = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}::1`;
      for (let i = 0; i < 2; i++) {
        assert.equal((await one.fetch('/admin/v1/projects', bearer('wrong', guesser))).status, 401);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
      // The other server has seen no failure of its own: only the shared count can refuse.
      const refused = await two.fetch('/admin/v1/projects', bearer(ADMIN_TOKEN, guesser));
      assert.equal(refused.status, 429);
      assert.match(refused.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/);
      assert.equal((await two.fetch('/admin/v1/projects', bearer(ADMIN_TOKEN, '192.0.2.99'))).status, 200);
    });

    test('an IPv6 client is counted by its /64: another address of its network is no new budget', async () => {
      const t = await appWith(dialect, { authFailures: { points: 3, seconds: 60 } });
      const { key, path } = await published(t);
      for (const address of ['2001:db8:0:7::1', '2001:db8:0:7:a:b:c:d', '2001:db8:0:7:ffff::2']) {
        assert.equal((await t.fetch(path, bearer('folio_ck_wrong', address))).status, 401);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal((await t.fetch(path, bearer(key, '2001:db8:0:7:1234::99'))).status, 429);
      assert.equal((await t.fetch(path, bearer(key, '2001:db8:0:8::1'))).status, 200, 'another /64');
    });

    test('a path spelled with percent-escapes is the route it reaches: counted, and refused', async () => {
      const t = await appWith(dialect, { authFailures: { points: 3, seconds: 60 } });
      const { key, path } = await published(t);
      const guesser = '198.51.100.9';
      const escaped = (url: string) =>
        url.replace(/^\/(.)/, (_, first: string) => `/%${first.charCodeAt(0).toString(16)}`);
      assert.equal(
        (await t.fetch(escaped(path), bearer(key, '198.51.100.10'))).status,
        200,
        'it is the route',
      );
      for (const url of [escaped('/admin/v1/projects'), escaped(path), escaped('/metrics')]) {
        assert.equal((await t.fetch(url, bearer('wrong-token', guesser))).status, 401, url);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
      for (const url of [
        '/admin/v1/projects',
        escaped('/admin/v1/projects'),
        escaped(path),
        escaped('/metrics'),
      ]) {
        assert.equal((await t.fetch(url, bearer(ADMIN_TOKEN, guesser))).status, 429, url);
      }
    });

    test('a genuine credential refused a use is no failed authentication, and spends its budget', async () => {
      const t = await appWith(dialect, {
        perCredential: { points: 20, seconds: 60 },
        authFailures: { points: 2, seconds: 60 },
      });
      const { key, path } = await published(t);
      const project = await t.createProject();
      const previewUrl = 'https://www.example.com/preview?t={token}';
      assert.equal(
        (await t.admin('PATCH', `/admin/v1/projects/${project.id}`, { previewUrl })).statusCode,
        200,
      );
      await t.putArticle(project.id, 'p1', newArticle({ slug: 'one' }));
      await t.putArticle(project.id, 'p2', newArticle({ slug: 'two' }));
      const link = await t.admin('POST', `/admin/v1/projects/${project.id}/articles/p1/preview-link`);
      const { token } = link.json().data;
      const content = `/api/v1/projects/${project.id}/content`;
      const address = '192.0.2.80';
      // A preview token on another article, on the list, on another project: 401 each time.
      for (const where of [`${content}/by-slug/two`, content, path]) {
        assert.equal((await t.fetch(where, bearer(token, address))).status, 401, where);
      }
      // A content key on another project: 403, counted against the key.
      const other = await t.fetch(content, bearer(key, address));
      assert.equal(other.status, 403);
      assert.match(other.headers.get('ratelimit') ?? '', /^"default";r=18;/, 'the warm-up read and this one');
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal((await t.fetch(`${content}/by-slug/one`, bearer(token, address))).status, 200);
      const own = await t.fetch(path, bearer(key, address));
      assert.equal(own.status, 200, 'the address is not locked out');
      assert.match(own.headers.get('ratelimit') ?? '', /^"default";r=17;/);
    });

    test('failed dashboard sign-ins and /metrics guesses count too', async () => {
      const t = await appWith(dialect, { authFailures: { points: 2, seconds: 60 } });
      const address = '192.0.2.44';
      const signIn = await t.fetch('/dashboard/sign-in', {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-forwarded-for': address,
          origin: 'http://folio.test',
        },
        body: 'token=wrong',
      });
      assert.ok([401, 403].includes(signIn.status), `sign-in answered ${signIn.status}`);
      assert.equal((await t.fetch('/metrics', bearer('wrong', address))).status, 401);
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal((await t.fetch('/admin/v1/projects', bearer(ADMIN_TOKEN, address))).status, 429);
    });
  });

  describe(`metrics (${dialect})`, () => {
    test('webhook attempts count by outcome: succeeded, retried, failed', async () => {
      const metrics = createMetrics();
      const t = await createTestApp(dialect, { metrics, clockStart: Date.now() });
      opened.push(t);
      const receiver = await startReceiver();
      after(() => receiver.close());
      const project = await t.createProject();
      await t.admin('PUT', `/admin/v1/projects/${project.id}/webhook`, { url: receiver.url });
      receiver.replies.push({ status: 500 }, { status: 204 });
      const before = await metrics.render();
      for (const outcome of ['succeeded', 'failed', 'retried']) {
        assert.match(before, new RegExp(`folio_webhook_deliveries_total\\{outcome="${outcome}"\\} 0`));
      }
      await t.putArticle(project.id, 'a1', newArticle({ published: true }));
      await t.dispatcher.runOnce();
      // The test schedule's first retry comes after a second.
      t.clock.advance(2_000);
      await t.dispatcher.runOnce();
      const text = await metrics.render();
      assert.match(text, /folio_webhook_deliveries_total\{outcome="retried"\} 1/);
      assert.match(text, /folio_webhook_deliveries_total\{outcome="succeeded"\} 1/);
    });

    test('/metrics needs the admin token', async () => {
      const t = await appWith(dialect, {});
      assert.equal((await t.fetch('/metrics')).status, 401);
      assert.equal((await t.fetch('/metrics', bearer(`${ADMIN_TOKEN}x`))).status, 401);
    });

    test('counts answers by route template and status, cached fast answers and cache hits included', async () => {
      const metrics = createMetrics();
      const rateLimits = await createRateLimits({
        perCredential: undefined,
        authFailures: { points: 30, seconds: 60 },
      });
      const t = await createTestApp(dialect, { metrics, rateLimits });
      opened.push(t);
      const { key, path } = await published(t);
      // The first read touched the key's lastUsedAt: that write moved the change token, so the
      // next read checks the key again on the full path (a cache hit there).
      await (await t.fetch(path, bearer(key))).arrayBuffer();
      const hitsBefore = t.app.fastPathHits();
      for (let i = 0; i < 5; i++) await (await t.fetch(path, bearer(key))).arrayBuffer();
      assert.equal(t.app.fastPathHits() - hitsBefore, 5);
      await (await t.fetch(path.replace('hello', 'missing'), bearer(key))).arrayBuffer();
      const scrape = await t.fetch('/metrics', bearer(ADMIN_TOKEN));
      assert.equal(scrape.status, 200);
      assert.match(scrape.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      const text = await scrape.text();
      const template = '/api/v1/projects/:projectId/content/by-slug/:slug';
      const count = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? Number.NaN);
      // The read that cached it (inject), the one that checked the key again, five fast answers.
      assert.equal(
        count(
          new RegExp(
            `folio_http_requests_total\\{route="${template.replaceAll('/', '\\/')}",method="GET",status="200"\\} (\\d+)`,
          ),
        ),
        7,
      );
      assert.equal(
        count(/folio_http_requests_total\{route="[^"]*by-slug[^"]*",method="GET",status="404"\} (\d+)/),
        1,
      );
      assert.equal(count(/folio_response_cache_hits_total (\d+)/), 6);
      assert.equal(count(/folio_response_cache_misses_total (\d+)/), 2, 'the first read and the 404');
      // Why the fast path let requests through: the 404 had no ready answer; on SQLite the key's
      // touch moved the change token too (PostgreSQL's change feed ignores a key being used).
      const tokenMoves = count(/folio_fast_path_refusals_total\{reason="token"\} (\d+)/);
      if (dialect === 'sqlite') assert.equal(tokenMoves, 1);
      else assert.ok(Number.isNaN(tokenMoves), 'no token refusal on PostgreSQL');
      assert.equal(count(/folio_fast_path_refusals_total\{reason="entry"\} (\d+)/), 1);
      assert.doesNotMatch(text, /folio_fast_path_refusals_total\{reason="credential"\}/);
      assert.match(text, /folio_http_request_duration_seconds_bucket\{le="[^"]+",route="[^"]*by-slug/);
      assert.equal(count(/folio_articles_published (\d+)/), 1);
      assert.equal(count(/folio_webhook_pending (\d+)/), 0);
      assert.match(text, /process_resident_memory_bytes \d+/);
      assert.match(text, /nodejs_eventloop_lag_seconds /);
      assert.doesNotMatch(text, /route="\/api\/v1\/projects\/prj_/, 'no raw URL is a label');
    });
  });
}
