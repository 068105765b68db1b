import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createClient } from './client.ts';
import type { ClientOptions, ContentClientOptions } from './client-types.ts';
import { FolioError } from './folio-error.ts';

type Reply = Response | Error | ((signal: AbortSignal) => Promise<Response>);

/** A scripted fetch: answers each call with the next reply and records what was asked. */
function fakeFetch(replies: Reply[]) {
  const calls: { url: string; headers: Headers; cache: RequestCache | undefined }[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    calls.push({ url: String(input), headers: new Headers(init?.headers), cache: init?.cache });
    const reply = replies.shift();
    if (reply === undefined) throw new Error(`unexpected request ${String(input)}`);
    if (reply instanceof Error) throw reply;
    if (typeof reply === 'function') return reply(init!.signal!);
    return reply;
  };
  return { fetch: fetch as typeof globalThis.fetch, calls };
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  Response.json(body, { status, headers });
const errorBody = (code: string, message: string, details?: unknown) => ({
  success: false,
  error: { code, message, ...(details ? { details } : {}) },
});
const pagination = (page: number, totalPages: number, limit = 2) => ({
  page,
  limit,
  total: totalPages * limit,
  totalPages,
  hasNext: page < totalPages,
  hasPrev: page > 1,
});
const item = (slug: string) => ({ id: slug, slug, title: slug.toUpperCase() });

function client(replies: Reply[], options: Partial<ContentClientOptions> = {}) {
  const fake = fakeFetch(replies);
  const sleeps: number[] = [];
  const folio = createClient({
    baseUrl: 'https://folio.example.com/',
    projectId: 'proj 1',
    contentKey: 'ck_secret',
    fetch: fake.fetch,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    ...options,
  });
  return { folio, calls: fake.calls, sleeps };
}

const ROOT = 'https://folio.example.com/api/v1/projects/proj%201/content';

describe('createClient requests', () => {
  it('lists a page with the content key and returns data and pagination', async () => {
    const page = { success: true, data: [item('a')], pagination: pagination(2, 3) };
    const { folio, calls } = client([json(page)]);
    const result = await folio.listArticles({ page: 2, limit: 2 });
    assert.deepEqual(result, { data: page.data, pagination: page.pagination });
    assert.equal(calls[0]!.url, `${ROOT}?page=2&limit=2`);
    assert.equal(calls[0]!.headers.get('authorization'), 'Bearer ck_secret');
  });

  it('sends no query when no page or limit is given and keeps a base path', async () => {
    const { folio, calls } = client([json({ success: true, data: [], pagination: pagination(1, 0) })], {
      baseUrl: 'https://example.com/folio',
    });
    await folio.listArticles();
    assert.equal(calls[0]!.url, 'https://example.com/folio/api/v1/projects/proj%201/content');
  });

  it('iterates over every article following pagination.hasNext', async () => {
    const { folio, calls } = client([
      json({ success: true, data: [item('a'), item('b')], pagination: pagination(1, 3) }),
      json({ success: true, data: [item('c'), item('d')], pagination: pagination(2, 3) }),
      json({ success: true, data: [item('e')], pagination: pagination(3, 3) }),
    ]);
    const slugs: string[] = [];
    for await (const article of folio.articles({ limit: 2 })) slugs.push(article.slug);
    assert.deepEqual(slugs, ['a', 'b', 'c', 'd', 'e']);
    assert.deepEqual(
      calls.map((c) => new URL(c.url).search),
      ['?page=1&limit=2', '?page=2&limit=2', '?page=3&limit=2'],
    );
  });

  it('iterates with the largest page size unless told otherwise', async () => {
    const { folio, calls } = client([
      json({ success: true, data: [item('a')], pagination: pagination(1, 1, 100) }),
    ]);
    const slugs: string[] = [];
    for await (const article of folio.articles()) slugs.push(article.slug);
    assert.deepEqual(slugs, ['a']);
    assert.equal(new URL(calls[0]!.url).search, '?page=1&limit=100');
  });

  it('refuses a page other than the one asked for, rather than reading page 1 forever', async () => {
    // A cache in front of Folio keyed without the query string answers page 1 to every page.
    const page1 = () => json({ success: true, data: [item('a')], pagination: pagination(1, 3, 1) });
    const { folio, calls } = client([page1(), page1(), page1()]);
    const slugs: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const article of folio.articles({ limit: 1 })) slugs.push(article.slug);
      })(),
      (error: unknown) =>
        error instanceof FolioError &&
        error.code === 'invalid_response' &&
        /page 2, got page 1/.test(error.message),
    );
    assert.deepEqual(slugs, ['a']);
    assert.equal(calls.length, 2);
  });

  it('sends page and limit without URLSearchParams#size (older runtimes)', async (t) => {
    const size = Object.getOwnPropertyDescriptor(URLSearchParams.prototype, 'size');
    delete (URLSearchParams.prototype as { size?: number }).size;
    t.after(() => Object.defineProperty(URLSearchParams.prototype, 'size', size!));
    const { folio, calls } = client([json({ success: true, data: [], pagination: pagination(2, 2) })]);
    await folio.listArticles({ page: 2, limit: 5 });
    assert.equal(new URL(calls[0]!.url).search, '?page=2&limit=5');
  });

  it('stops iterating at an empty page even if it claims more', async () => {
    const { folio, calls } = client([json({ success: true, data: [], pagination: { ...pagination(1, 5) } })]);
    const all = [];
    for await (const article of folio.articles()) all.push(article);
    assert.deepEqual(all, []);
    assert.equal(calls.length, 1);
  });

  it('reads an article by its URL-encoded slug', async () => {
    const article = { ...item('café'), related: [] };
    const { folio, calls } = client([json({ success: true, data: article })]);
    assert.deepEqual(await folio.getArticle('café/x?y#z'), article);
    assert.equal(calls[0]!.url, `${ROOT}/by-slug/caf%C3%A9%2Fx%3Fy%23z`);
  });

  it('answers null for a 404 without retrying, and for a slug no article has without a request', async () => {
    const { folio, calls } = client([json(errorBody('not_found', 'No article'), 404)]);
    assert.equal(await folio.getArticle('missing'), null);
    assert.equal(await folio.getArticle(''), null);
    // A lone surrogate has no UTF-8 form: encodeURIComponent would throw a URIError.
    assert.equal(await folio.getArticle('a\uD800b'), null);
    assert.equal(calls.length, 1);
  });

  it('answers null for any 404, a plain-text one or one with another error code', async () => {
    const { folio, calls } = client([
      new Response('Not Found', { status: 404, headers: { 'content-type': 'text/plain' } }),
      json(errorBody('unknown_route', 'No route'), 404),
    ]);
    assert.equal(await folio.getArticle('a'), null);
    assert.equal(await folio.getArticle('b'), null);
    assert.equal(calls.length, 2);
  });

  it('still throws for other error statuses of the article read', async () => {
    const { folio } = client([new Response('Gone', { status: 410 }), json(errorBody('not_found', 'x'), 400)]);
    await assert.rejects(folio.getArticle('a'), { status: 410, code: 'http_error' });
    await assert.rejects(folio.getArticle('a'), { status: 400, code: 'not_found' });
  });

  it('reads the sitemap', async () => {
    const entries = [{ url: 'https://example.com/blog/a', lastModified: '2026-11-20T10:00:00.000Z' }];
    const { folio, calls } = client([json({ success: true, data: entries })]);
    assert.deepEqual(await folio.getSitemap(), entries);
    assert.equal(calls[0]!.url, `${ROOT}/sitemap`);
  });
});

describe('createClient previews', () => {
  const previewArticle = { ...item('draft'), status: 'changed', publishedAt: null, related: [] };

  it('reads with a preview token as the bearer, asking fetch to store nothing', async () => {
    const { folio, calls } = client([
      json({ success: true, data: previewArticle }),
      json({ success: true, data: [] }),
    ]);
    assert.deepEqual(await folio.getArticle('draft', { previewToken: 'folio_pt_abc' }), previewArticle);
    assert.equal(calls[0]!.url, `${ROOT}/by-slug/draft`);
    assert.equal(calls[0]!.headers.get('authorization'), 'Bearer folio_pt_abc');
    assert.equal(calls[0]!.cache, 'no-store');
    // The token was for that one read: the client's key and fetch's default cache are back.
    await folio.getSitemap();
    assert.equal(calls[1]!.headers.get('authorization'), 'Bearer ck_secret');
    assert.equal(calls[1]!.cache, undefined);
  });

  it('refuses an empty or missing preview token rather than reading with the key', async () => {
    const { folio, calls } = client([]);
    for (const previewToken of ['', '  ', undefined, null]) {
      const options = { previewToken } as unknown as { previewToken: string };
      await assert.rejects(folio.getArticle('draft', options), {
        name: 'TypeError',
        message: /empty previewToken/,
      });
    }
    assert.equal(calls.length, 0);
  });

  it('throws the 401 of a bad or expired token, and refuses an answer without status', async () => {
    const { folio } = client([
      json(errorBody('unauthorized', 'The preview token is not valid or has expired.'), 401),
      json({ success: true, data: { ...item('draft'), related: [] } }),
    ]);
    await assert.rejects(folio.getArticle('draft', { previewToken: 'folio_pt_old' }), {
      name: 'FolioError',
      status: 401,
      code: 'unauthorized',
    });
    // One made up in a visitor's address bar is Folio's to refuse, as an expired one is.
    const madeUp = client([
      json(errorBody('unauthorized', 'The preview token is not valid or has expired.'), 401),
    ]);
    await assert.rejects(madeUp.folio.getArticle('draft', { previewToken: 'made-up' }), {
      name: 'FolioError',
      status: 401,
    });
    assert.equal(madeUp.calls[0]!.headers.get('authorization'), 'Bearer made-up');
    await assert.rejects(folio.getArticle('draft', { previewToken: 'folio_pt_abc' }), {
      code: 'invalid_response',
      message: new RegExp(`^Folio answered GET ${ROOT}/by-slug/draft with an unexpected body`),
    });
  });

  it('refuses a key as previewToken before sending, naming the option', async () => {
    const { folio, calls } = client([]);
    for (const [previewToken, message] of [
      [
        'folio_ck_secret',
        /given a content key \(folio_ck_…\) as previewToken.*createClient\(\) as contentKey/,
      ],
      [
        'folio_pk_secret',
        /given a preview key \(folio_pk_…\) as previewToken.*createClient\(\) as previewKey/,
      ],
    ] as const) {
      const refused = await folio.getArticle('draft', { previewToken }).catch((error: unknown) => error);
      assert.ok(refused instanceof TypeError, previewToken);
      assert.match(refused.message, message);
      assert.doesNotMatch(refused.message, /secret/, 'the value itself is never shown');
    }
    assert.equal(calls.length, 0);
  });

  it('never answers null to a token: a 404 is not Folio, and an empty slug is no article', async () => {
    // Folio answers 401 to a token for any slug but its article's: a 404 is some other server.
    const { folio, calls } = client([
      new Response('Not Found', { status: 404, headers: { 'content-type': 'text/plain' } }),
    ]);
    await assert.rejects(folio.getArticle('draft', { previewToken: 'folio_pt_abc' }), {
      name: 'FolioError',
      status: 404,
      code: 'http_error',
    });
    for (const slug of ['', 'a\uD800b']) {
      await assert.rejects(folio.getArticle(slug, { previewToken: 'folio_pt_abc' }), {
        name: 'TypeError',
        message: /needs its article's slug/,
      });
    }
    assert.equal(calls.length, 1);
  });

  it('reads everything with a preview key, asking fetch to store nothing', async () => {
    const page = { success: true, data: [previewArticle], pagination: pagination(1, 1) };
    const { fetch, calls } = fakeFetch([json(page), json({ success: true, data: previewArticle })]);
    const folio = createClient({
      baseUrl: 'https://folio.example.com/',
      projectId: 'proj 1',
      previewKey: 'folio_pk_secret',
      fetch,
    });
    assert.deepEqual((await folio.listArticles()).data, [previewArticle]);
    assert.deepEqual(await folio.getArticle('draft'), previewArticle);
    for (const call of calls) {
      assert.equal(call.headers.get('authorization'), 'Bearer folio_pk_secret');
      assert.equal(call.cache, 'no-store');
    }
  });
});

describe('createClient sync', () => {
  const upsert = (id: string) => ({ type: 'upsert', article: { ...item(id), id } });
  const changes = (list: unknown[], cursor: string, hasMore = false) =>
    json({ success: true, data: { changes: list, cursor, hasMore } });

  it('follows hasMore from the cursor given and returns every change with the last cursor', async () => {
    const { folio, calls } = client([
      changes([upsert('a')], 'c2', true),
      changes([{ type: 'delete', id: 'b', slug: 'b' }], 'c3'),
    ]);
    const result = await folio.sync({ cursor: 'c1', limit: 1 });
    assert.deepEqual(result, {
      changes: [upsert('a'), { type: 'delete', id: 'b', slug: 'b' }],
      cursor: 'c3',
      reset: false,
    });
    assert.deepEqual(
      calls.map((call) => call.url),
      [`${ROOT}/changes?since=c1&limit=1`, `${ROOT}/changes?since=c2&limit=1`],
    );
  });

  it('starts over without a cursor on 410 cursor_expired, and says so', async () => {
    const { folio, calls } = client([
      json(errorBody('cursor_expired', 'Too old'), 410),
      changes([upsert('a')], 'fresh'),
    ]);
    assert.deepEqual(await folio.sync({ cursor: 'old' }), {
      changes: [upsert('a')],
      cursor: 'fresh',
      reset: true,
    });
    assert.deepEqual(
      calls.map((call) => call.url),
      [`${ROOT}/changes?since=old`, `${ROOT}/changes`],
    );
  });

  it('without a cursor, a full sync whose mid-sync cursor expired starts over and is no reset', async () => {
    // No replica was given, so there is none to clear: the whole set is what was asked for.
    const { folio, calls } = client([
      changes([upsert('a')], 'c1', true),
      json(errorBody('cursor_expired', 'Too old'), 410),
      changes([upsert('a'), upsert('b')], 'c2'),
    ]);
    assert.deepEqual(await folio.sync({ limit: 1 }), {
      changes: [upsert('a'), upsert('b')],
      cursor: 'c2',
      reset: false,
    });
    assert.deepEqual(
      calls.map((call) => call.url),
      [`${ROOT}/changes?limit=1`, `${ROOT}/changes?since=c1&limit=1`, `${ROOT}/changes?limit=1`],
    );
  });

  it('reads everything for an empty cursor, and says to start afresh', async () => {
    // A cursor file that was truncated or never written: the replica beside it may hold
    // articles deleted since, which only a reset removes.
    const { folio, calls } = client([changes([upsert('a')], 'c1'), changes([upsert('a')], 'c2')]);
    for (const cursor of ['', ' \n']) {
      const result = await folio.sync({ cursor });
      assert.deepEqual(result.changes, [upsert('a')]);
      assert.equal(result.reset, true, JSON.stringify(cursor));
    }
    assert.deepEqual(
      calls.map((call) => call.url),
      [`${ROOT}/changes`, `${ROOT}/changes`],
    );
  });

  it('follows an empty page that claims more when its cursor moved, to the last page', async () => {
    // Folio leaves out an upsert whose article was unpublished or deleted between reading the
    // page's changes and rendering them (its delete comes on a later page): a page of only
    // such upserts is empty, with hasMore. Stopping there would return part of the set.
    const { folio, calls } = client([
      changes([upsert('a')], 'c1', true),
      changes([], 'c2', true),
      changes([upsert('b'), { type: 'delete', id: 'c', slug: 'c' }], 'c3'),
    ]);
    assert.deepEqual(await folio.sync({ limit: 1 }), {
      changes: [upsert('a'), upsert('b'), { type: 'delete', id: 'c', slug: 'c' }],
      cursor: 'c3',
      reset: false,
    });
    assert.deepEqual(
      calls.map((call) => call.url),
      [`${ROOT}/changes?limit=1`, `${ROOT}/changes?since=c1&limit=1`, `${ROOT}/changes?since=c2&limit=1`],
    );
  });

  it('refuses a cursor that does not move, rather than reading the same page forever', async () => {
    const { folio, calls } = client([changes([upsert('a')], 'c1', true), changes([upsert('a')], 'c1', true)]);
    await assert.rejects(
      folio.sync(),
      (error: unknown) => error instanceof FolioError && error.code === 'invalid_response',
    );
    assert.equal(calls.length, 2);
  });

  it('throws other errors, and a 410 without a cursor', async () => {
    const { folio } = client([
      json(errorBody('invalid_query', 'Bad cursor'), 400),
      json(errorBody('cursor_expired', 'Too old'), 410),
      json({ success: true, data: { changes: [] } }),
    ]);
    await assert.rejects(folio.sync({ cursor: 'x' }), { status: 400, code: 'invalid_query' });
    await assert.rejects(folio.sync(), { status: 410, code: 'cursor_expired' });
    await assert.rejects(folio.sync(), { code: 'invalid_response' });
  });
});

describe('createClient errors', () => {
  it('a FolioError has details and retryAfterMs only when its answer had them', () => {
    const bare = new FolioError({ status: 404, code: 'not_found', message: 'No such article' });
    // Own properties set to undefined would show in `Object.keys`, spreads and loggers' output.
    assert.deepEqual(Object.keys(bare).sort(), ['code', 'name', 'status']);
    const full = new FolioError({
      status: 429,
      code: 'rate_limited',
      message: 'Slow down',
      retryAfterMs: 1000,
    });
    assert.equal(full.retryAfterMs, 1000);
  });

  it('throws a FolioError with status, code, message and details, without retrying a 4xx', async () => {
    const details = [{ path: '/page', message: 'must be >= 1' }];
    const { folio, calls } = client([json(errorBody('invalid_query', 'Bad page', details), 400)]);
    const error = await folio.listArticles({ page: 0 }).catch((e: unknown) => e);
    assert.ok(error instanceof FolioError);
    assert.ok(error instanceof Error);
    assert.equal(error.name, 'FolioError');
    assert.equal(error.status, 400);
    assert.equal(error.code, 'invalid_query');
    assert.equal(error.message, 'Bad page');
    assert.deepEqual(error.details, details);
    assert.equal(calls.length, 1);
  });

  it('turns a 401 on any endpoint into a FolioError', async () => {
    const { folio } = client([json(errorBody('unauthorized', 'Unknown key'), 401)]);
    await assert.rejects(folio.getArticle('a'), { name: 'FolioError', status: 401, code: 'unauthorized' });
  });

  it('says a 401 came after a redirect to another origin, which fetch sends no key to', async () => {
    // A proxy that sends http:// to https://: fetch follows it and drops Authorization, so
    // Folio answers 401 to a key that is right.
    const redirected = (status: number, url: string) => {
      const response = json(errorBody('unauthorized', 'A valid bearer token is required.'), status);
      Object.defineProperties(response, { redirected: { value: true }, url: { value: url } });
      return response;
    };
    const { folio } = client(
      [
        redirected(401, 'https://folio.example.com/api/v1/projects/proj%201/content/sitemap'),
        redirected(401, 'http://folio.example.com/api/v1/projects/proj%201/content/sitemap?x=1'),
      ],
      { baseUrl: 'http://folio.example.com' },
    );
    await assert.rejects(folio.getSitemap(), {
      status: 401,
      code: 'unauthorized',
      message:
        'A valid bearer token is required. (The request was redirected to https://folio.example.com, ' +
        'another origin, and fetch does not send the key there: set baseUrl to "https://folio.example.com".)',
    });
    // A redirect within the origin keeps the key: Folio's own words only.
    await assert.rejects(folio.getSitemap(), { message: 'A valid bearer token is required.' });
  });

  it('names the status and the address when the error body is not the contract shape', async () => {
    const { folio } = client([new Response('<h1>Bad gateway</h1>', { status: 502 })], { retries: 0 });
    await assert.rejects(folio.getSitemap(), {
      status: 502,
      code: 'http_error',
      message:
        "HTTP 502 from https://folio.example.com/api/v1/projects/proj%201/content/sitemap, without a Folio error body (a proxy's answer, or is baseUrl another server?)",
    });
  });

  it("says what came back instead of the API, and that baseUrl is likely not Folio's root", async () => {
    // A baseUrl copied from the dashboard: Folio redirects every address under it to sign-in.
    const signIn = new Response('<!doctype html>\n<html lang="en">\n<head><title>Sign in</title>', {
      headers: { 'content-type': 'text/html; charset=utf-8' },
    });
    Object.defineProperties(signIn, {
      redirected: { value: true },
      url: { value: 'https://folio.example.com/dashboard/sign-in?next=%2Fdashboard%2Fapi' },
    });
    const { folio } = client([signIn, new Response('OK', { headers: { 'content-type': 'text/plain' } })], {
      baseUrl: 'https://folio.example.com/dashboard',
    });
    await assert.rejects(folio.listArticles({ page: 2 }), {
      code: 'invalid_response',
      status: 200,
      message:
        'Folio answered GET https://folio.example.com/dashboard/api/v1/projects/proj%201/content?page=2 with an unexpected body ' +
        '(200, redirected to https://folio.example.com/dashboard/sign-in; text/html; charset=utf-8; ' +
        'starting "<!doctype html> <html lang=\\"en\\"> <head><title>Sign in</title>"). ' +
        'A web page, not the API: is baseUrl "https://folio.example.com/dashboard" Folio\'s root address? ' +
        'Give the address /api/v1 lives under, without the path of a dashboard page.',
    });
    await assert.rejects(folio.getSitemap(), {
      code: 'invalid_response',
      message:
        /\(200; text\/plain; starting "OK"\)\. Not JSON: a proxy's answer, or is baseUrl "https:\/\/folio\.example\.com\/dashboard" another server\?$/,
    });
  });

  it('refuses a success status with an unexpected body', async () => {
    const { folio } = client([
      json({ data: [] }),
      json({ success: true, data: [] }),
      json({ success: true }),
    ]);
    const refused = await folio.getSitemap().catch((error: unknown) => error);
    assert.ok(refused instanceof FolioError);
    assert.deepEqual([refused.code, refused.status], ['invalid_response', 200]);
    assert.ok(
      refused.message.startsWith(
        `Folio answered GET ${ROOT}/sitemap with an unexpected body (200; application/json; starting ${JSON.stringify('{"data":[]}')}). JSON of another shape`,
      ),
      refused.message,
    );
    await assert.rejects(folio.listArticles(), { code: 'invalid_response' });
    await assert.rejects(folio.getArticle('a'), { code: 'invalid_response' });
  });
});

describe('createClient retries', () => {
  const ok = () => json({ success: true, data: [] });

  it('retries a 429 after the seconds Retry-After asks for', async () => {
    const { folio, calls, sleeps } = client([
      json(errorBody('rate_limited', 'Slow down'), 429, { 'retry-after': '3' }),
      ok(),
    ]);
    assert.deepEqual(await folio.getSitemap(), []);
    assert.equal(calls.length, 2);
    assert.deepEqual(sleeps, [3000]);
  });

  it('reads a Retry-After HTTP date against the injected clock', async () => {
    const now = Date.parse('2026-11-22T10:00:00.000Z');
    const { folio, sleeps } = client(
      [json({}, 429, { 'retry-after': 'Sun, 22 Nov 2026 10:00:02 GMT' }), ok()],
      { now: () => now, maxRetryDelayMs: 5000 },
    );
    await folio.getSitemap();
    assert.deepEqual(sleeps, [2000]);
  });

  it('gives up at once when Retry-After asks for more than maxRetryDelayMs, and says how long', async () => {
    const { folio, calls, sleeps } = client(
      [json(errorBody('rate_limited', 'Slow down'), 429, { 'retry-after': '51' }), ok()],
      { maxRetryDelayMs: 5000 },
    );
    // Asking again before then would only be refused again.
    await assert.rejects(folio.getSitemap(), { status: 429, code: 'rate_limited', retryAfterMs: 51_000 });
    assert.deepEqual([calls.length, sleeps], [1, []]);
  });

  it('says how long the last answer asked to wait when retries run out', async () => {
    const unavailable = () => json(errorBody('unavailable', 'Down'), 503, { 'retry-after': '1' });
    const { folio, calls } = client([unavailable(), unavailable()], { retries: 1 });
    await assert.rejects(folio.getArticle('a'), { status: 503, retryAfterMs: 1000 });
    assert.equal(calls.length, 2);
  });

  it('backs off exponentially with jitter on 5xx and then gives up with the last error', async () => {
    const unavailable = () => json(errorBody('internal', 'Down'), 503);
    const { folio, calls, sleeps } = client([unavailable(), unavailable(), unavailable(), unavailable()], {
      retries: 3,
      retryDelayMs: 100,
      random: () => 0.5,
    });
    await assert.rejects(folio.getSitemap(), { status: 503, code: 'internal' });
    assert.equal(calls.length, 4);
    // ceiling 100, 200, 400: half fixed plus half of it times 0.5
    assert.deepEqual(sleeps, [75, 150, 300]);
  });

  it('keeps jitter within [ceiling/2, ceiling]', async () => {
    const low = client([json({}, 500), ok()], { retryDelayMs: 1000, random: () => 0 });
    await low.folio.getSitemap();
    const high = client([json({}, 500), ok()], { retryDelayMs: 1000, random: () => 0.999999 });
    await high.folio.getSitemap();
    assert.deepEqual([...low.sleeps, ...high.sleeps], [500, 1000]);
  });

  it('retries a network error and reports network_error when it persists', async () => {
    const recovered = client([new TypeError('fetch failed'), ok()]);
    assert.deepEqual(await recovered.folio.getSitemap(), []);
    assert.equal(recovered.calls.length, 2);

    const down = client([new TypeError('fetch failed'), new TypeError('fetch failed')], { retries: 1 });
    const error = await down.folio.getSitemap().catch((e: unknown) => e);
    assert.ok(error instanceof FolioError);
    assert.equal(error.status, 0);
    assert.equal(error.code, 'network_error');
    assert.ok(error.cause instanceof TypeError);
    assert.equal(error.message, 'Could not reach Folio at https://folio.example.com: fetch failed');
  });

  it('names the system error that undici keeps in a cause, where a reader would not look', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8080'), { code: 'ECONNREFUSED' });
    const failed = new TypeError('fetch failed', { cause: refused });
    const down = client([failed], { retries: 0 });
    await assert.rejects(down.folio.getSitemap(), {
      code: 'network_error',
      message: 'Could not reach Folio at https://folio.example.com: fetch failed (ECONNREFUSED)',
    });
    const hang = (signal: AbortSignal) =>
      new Promise<Response>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    const slow = client([hang], { timeoutMs: 20, retries: 0 });
    await assert.rejects(slow.folio.getSitemap(), {
      code: 'timeout',
      message: 'Folio at https://folio.example.com did not answer within 20 ms',
    });
  });

  it('aborts an attempt that exceeds timeoutMs and retries it', async () => {
    const hang = (signal: AbortSignal) =>
      new Promise<Response>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    const timedOut = client([hang], { timeoutMs: 20, retries: 0 });
    await assert.rejects(timedOut.folio.getSitemap(), { name: 'FolioError', status: 0, code: 'timeout' });

    const retried = client([hang, ok()], { timeoutMs: 20, retries: 1 });
    assert.deepEqual(await retried.folio.getSitemap(), []);
    assert.equal(retried.calls.length, 2);
  });

  it('stops at once when the caller aborts, with the caller’s reason', async () => {
    const controller = new AbortController();
    const hang = (signal: AbortSignal) =>
      new Promise<Response>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    const { folio, calls } = client([hang, ok()], { retries: 3 });
    const pending = folio.getSitemap({ signal: controller.signal });
    controller.abort(new Error('navigated away'));
    await assert.rejects(pending, { message: 'navigated away' });
    assert.equal(calls.length, 1);
  });
});

describe('createClient guards', () => {
  const options = { baseUrl: 'https://folio.example.com', projectId: 'p', contentKey: 'ck' };

  /** Runs `fn` with the given globals defined, then removes them. */
  function withGlobals(names: ('window' | 'document' | 'importScripts')[], fn: () => void) {
    const g = globalThis as Record<string, unknown>;
    for (const name of names) g[name] = name === 'importScripts' ? () => {} : {};
    try {
      fn();
    } finally {
      for (const name of names) delete g[name];
    }
  }

  for (const globals of [['window', 'document'], ['window'], ['document']] as const) {
    it(`refuses to run in a browser with a content key (rule 5): ${globals.join(' and ')} defined`, () => {
      withGlobals([...globals], () =>
        assert.throws(() => createClient(options), /browser.*server-only.*rule 5/s),
      );
      assert.equal(typeof globalThis.window, 'undefined');
      assert.equal(typeof globalThis.document, 'undefined');
    });
  }

  it('refuses to run in a browser worker, which has importScripts but no window or document', () => {
    withGlobals(['importScripts'], () =>
      assert.throws(() => createClient(options), /browser.*server-only.*rule 5/s),
    );
    assert.equal(typeof (globalThis as { importScripts?: unknown }).importScripts, 'undefined');
  });

  it('runs on the server', () => {
    assert.equal(typeof createClient(options).getArticle, 'function');
  });

  it('refuses a preview key in a browser too: it is a secret like a content key', () => {
    withGlobals(['window'], () =>
      assert.throws(
        () =>
          createClient({ baseUrl: 'https://folio.example.com', projectId: 'p', previewKey: 'folio_pk_x' }),
        /browser.*server-only.*rule 5/s,
      ),
    );
  });

  it('refuses wrong options at creation, not on the first request', () => {
    const bad: [Partial<ClientOptions>, RegExp][] = [
      [{ baseUrl: 'folio.example.com' }, /baseUrl must be an absolute http\(s\) URL/],
      [{ baseUrl: 'ftp://folio.example.com' }, /baseUrl must be an absolute http\(s\) URL/],
      [{ baseUrl: 'https://user:secret@folio.example.com' }, /baseUrl must not hold credentials/],
      // The API's address copied from a curl example: every read would be a 404.
      [{ baseUrl: 'https://folio.example.com/api/v1' }, /baseUrl is the server's address, without \/api\/v1/],
      [{ baseUrl: 'https://folio.example.com/folio/api/v1/projects/p/content' }, /without \/api\/v1/],
      [{ timeoutMs: -1 }, /timeoutMs must be a number of milliseconds above 0, up to 2147483647, not -1/],
      // Past what a timer holds: it would fire at once.
      [{ timeoutMs: 2 ** 31 }, /timeoutMs must be/],
      [
        { maxRetryDelayMs: 30 * 24 * 3600_000 },
        /maxRetryDelayMs must be a number of milliseconds from 0 to 2147483647/,
      ],
      [{ timeoutMs: 0 }, /timeoutMs must be/],
      [{ timeoutMs: Number.NaN }, /timeoutMs must be/],
      [{ timeoutMs: '5000' as unknown as number }, /timeoutMs must be/],
      [{ retries: Number.POSITIVE_INFINITY }, /retries must be a whole number, 0 or more, not Infinity/],
      [{ retries: 1.5 }, /retries must be/],
      [{ retries: -1 }, /retries must be/],
      [{ retryDelayMs: -5 }, /retryDelayMs must be/],
      [{ maxRetryDelayMs: Number.POSITIVE_INFINITY }, /maxRetryDelayMs must be/],
      [{ fetch: 'fetch' as unknown as typeof fetch }, /fetch must be a function/],
    ];
    for (const [wrong, message] of bad) {
      assert.throws(() => createClient({ ...options, ...wrong } as ClientOptions), message);
    }
    const edges = { retries: 0, retryDelayMs: 0, maxRetryDelayMs: 0, timeoutMs: 1 };
    assert.equal(typeof createClient({ ...options, ...edges }).getArticle, 'function');
    const longest = { retryDelayMs: 2 ** 31 - 1, maxRetryDelayMs: 2 ** 31 - 1, timeoutMs: 2 ** 31 - 1 };
    assert.equal(typeof createClient({ ...options, ...longest }).getArticle, 'function');
  });

  it('refuses a key under the wrong option, both keys, and a preview token as a key', () => {
    const base = { baseUrl: 'https://folio.example.com', projectId: 'p' };
    assert.throws(() => createClient({ ...base, contentKey: 'folio_pk_x' }), /preview key.*previewKey/);
    assert.throws(() => createClient({ ...base, previewKey: 'folio_ck_x' }), /content key.*contentKey/);
    assert.throws(() => createClient({ ...base, contentKey: 'folio_pt_x' }), /preview token.*getArticle/);
    assert.throws(() => createClient({ ...base, previewKey: 'folio_pt_x' }), /preview token.*getArticle/);
    const both = { ...base, contentKey: 'folio_ck_x', previewKey: 'folio_pk_x' } as unknown as ClientOptions;
    assert.throws(() => createClient(both), /not both/);
    assert.throws(() => createClient({ ...base, previewKey: '' }), /non-empty previewKey/);
    assert.throws(() => createClient(base as ClientOptions), /non-empty contentKey \(or a previewKey\)/);
  });

  it('refuses missing settings and a non-http base URL', () => {
    assert.throws(() => createClient({ ...options, contentKey: '' }), /contentKey/);
    assert.throws(() => createClient({ ...options, projectId: ' ' }), /projectId/);
    assert.throws(() => createClient({ ...options, baseUrl: 'ftp://folio.example.com' }), /http/);
    assert.throws(() => createClient({ ...options, baseUrl: 'folio.example.com' }));
  });
});
