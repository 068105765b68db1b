import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { createRateLimits } from '../../http/rate-limits.ts';
import { addFormats } from '../../http/validation.ts';
import { DIALECTS } from '../../test/databases.ts';
import { ADMIN_TOKEN, createTestApp, newArticle, type TestApp } from '../../test/test-app.ts';

/**
 * Holds the served OpenAPI document to what the server answers: every operation is called with
 * good and bad input, and each answer's status must be documented for that operation, its
 * content type documented for that status, its body valid against the documented schema, and
 * each header field the contract promises (ETag, WWW-Authenticate, Retry-After, RateLimit-*)
 * documented on that answer.
 */

const PROMISED_HEADERS = ['etag', 'www-authenticate', 'retry-after', 'ratelimit-policy', 'ratelimit'];
// Failed authentications per client address before 429; each call has an address of its own.
const AUTH_FAILURES = 2;

type MediaType = { schema?: unknown };
type Response = { content?: Record<string, MediaType>; headers?: Record<string, unknown> };
type Parameter = { name: string; in: string };
type Operation = { operationId: string; parameters?: Parameter[]; responses: Record<string, Response> };
type Document = { paths: Record<string, Record<string, Operation>> };

interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The documented path template. */
  route: string;
  url: string;
  token?: string | undefined;
  body?: unknown;
  headers?: Record<string, string>;
  /** Over a real socket, where cached delivery answers come from the fast path, not the router. */
  socket?: boolean;
}

interface Answer {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  // biome-ignore lint/suspicious/noExplicitAny: like inject()'s json(), tests check it field by field
  json(): any;
}

const pointer = (...parts: string[]) =>
  parts.map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

function documented(operation: Operation, status: number): [string, Response] | undefined {
  const exact = operation.responses[String(status)];
  if (exact) return [String(status), exact];
  const range = `${String(status)[0]}XX`;
  return operation.responses[range] ? [range, operation.responses[range]!] : undefined;
}

for (const dialect of DIALECTS) {
  describe(`the OpenAPI document describes real answers [${dialect}]`, () => {
    let t: TestApp;
    let document: Document;
    let ajv: Ajv2020;
    const problems: string[] = [];
    const seen = new Set<string>();
    let addresses = 0;

    before(async () => {
      // With FOLIO_RATE_LIMIT set, as the RateLimit fields are then on every counted answer.
      const rateLimits = await createRateLimits({
        perCredential: { points: 10_000, seconds: 60 },
        authFailures: { points: AUTH_FAILURES, seconds: 60 },
      });
      t = await createTestApp(dialect, { rateLimits, trustProxy: true });
      document = (await t.app.inject({ method: 'GET', url: '/public/v1/openapi.json' })).json();
      ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
      addFormats(ajv);
      ajv.addSchema(document as object, 'openapi.json');
    });
    after(() => t.close());

    async function send(call: Call): Promise<Answer> {
      const headers = {
        'x-forwarded-for': `198.51.100.${++addresses % 250}`,
        ...(call.token ? { authorization: `Bearer ${call.token}` } : {}),
        ...call.headers,
      };
      if (!call.socket) {
        const { body } = call;
        return t.app.inject({
          method: call.method,
          url: call.url,
          headers,
          ...(body === undefined ? {} : { payload: body as object }),
        });
      }
      const response = await t.fetch(call.url, { method: call.method, headers });
      const body = await response.text();
      return {
        statusCode: response.status,
        headers: Object.fromEntries(response.headers),
        body,
        json: () => JSON.parse(body),
      };
    }

    async function check(call: Call): Promise<Answer> {
      const response = await send(call);
      const method = call.method.toLowerCase();
      const label = `${call.method} ${call.url} → ${response.statusCode}`;
      const operation = document.paths[call.route]?.[method];
      if (!operation) {
        problems.push(`${label}: ${call.method} ${call.route} is not documented`);
        return response;
      }
      seen.add(`${method} ${call.route}`);
      for (const name of Object.keys(call.headers ?? {}).filter((field) => field.startsWith('if-'))) {
        const parameters = operation.parameters ?? [];
        if (!parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === name)) {
          problems.push(`${label}: request header ${name} not documented`);
        }
      }
      const match = documented(operation, response.statusCode);
      if (!match) {
        problems.push(`${label}: status not documented for ${operation.operationId}`);
        return response;
      }
      const [status, answer] = match;
      const described = Object.keys(answer.headers ?? {}).map((name) => name.toLowerCase());
      for (const name of PROMISED_HEADERS.filter((field) => response.headers[field] !== undefined)) {
        if (!described.includes(name)) problems.push(`${label}: header ${name} not documented on ${status}`);
      }
      const type = String(response.headers['content-type'] ?? '').split(';')[0]!;
      if (response.body === '') {
        if (answer.content && Object.keys(answer.content).length > 0 && response.statusCode !== 304) {
          problems.push(`${label}: empty body, but ${status} documents ${Object.keys(answer.content)}`);
        }
        return response;
      }
      const media = answer.content?.[type];
      if (!media) {
        problems.push(`${label}: ${type} not documented (${Object.keys(answer.content ?? {})})`);
        return response;
      }
      const ref = `openapi.json#/${pointer('paths', call.route, method, 'responses', status, 'content', type, 'schema')}`;
      const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
      const body = type === 'application/json' ? response.json() : response.body;
      if (!validate(body)) {
        problems.push(`${label}: body does not match: ${ajv.errorsText(validate.errors)}`);
      }
      return response;
    }

    test('every operation, with good and bad input', async () => {
      const admin = ADMIN_TOKEN;
      const P = '/admin/v1/projects';
      const project = (
        await check({
          method: 'POST',
          route: P,
          url: P,
          token: admin,
          body: {
            name: 'Site',
            websiteUrl: 'https://www.customer.test',
            articlesPath: '/blog',
            previewUrl: 'https://www.customer.test/preview?token={token}&slug={slug}',
          },
        })
      ).json().data;
      const id = project.id as string;
      const p = `${P}/{projectId}`;
      const pp = `${P}/${id}`;
      await check({ method: 'POST', route: P, url: P, token: admin, body: { name: '' } });
      await check({ method: 'POST', route: P, url: P, token: 'nope', body: { name: 'x' } });
      await check({ method: 'POST', route: P, url: P, body: { name: 'x' } });
      await check({
        method: 'POST',
        route: P,
        url: P,
        token: admin,
        body: 'x',
        headers: { 'content-type': 'text/plain' },
      });
      await check({ method: 'GET', route: P, url: P, token: admin });
      await check({ method: 'GET', route: P, url: `${P}?limit=0`, token: admin });
      await check({ method: 'GET', route: p, url: pp, token: admin });
      await check({ method: 'GET', route: p, url: `${P}/prj_unknown`, token: admin });
      await check({ method: 'PATCH', route: p, url: pp, token: admin, body: { name: 'Renamed' } });
      await check({ method: 'PATCH', route: p, url: pp, token: admin, body: { websiteUrl: 'ftp://x' } });

      const keys = `${p}/keys`;
      const content = (
        await check({ method: 'POST', route: keys, url: `${pp}/keys`, token: admin, body: { name: 'site' } })
      ).json().data;
      const preview = (
        await check({
          method: 'POST',
          route: keys,
          url: `${pp}/keys`,
          token: admin,
          body: { name: 'p', kind: 'preview' },
        })
      ).json().data;
      await check({
        method: 'POST',
        route: keys,
        url: `${pp}/keys`,
        token: admin,
        body: { name: 'p', kind: 'other' },
      });
      await check({ method: 'GET', route: keys, url: `${pp}/keys`, token: admin });
      const doomed = (
        await check({ method: 'POST', route: keys, url: `${pp}/keys`, token: admin, body: { name: 'd' } })
      ).json().data;
      await check({
        method: 'DELETE',
        route: `${keys}/{keyId}`,
        url: `${pp}/keys/${doomed.id}`,
        token: admin,
      });
      await check({
        method: 'DELETE',
        route: `${keys}/{keyId}`,
        url: `${pp}/keys/${doomed.id}`,
        token: admin,
      });
      await check({ method: 'GET', route: p, url: pp, token: content.key });

      const a = `${p}/articles/{articleId}`;
      const put = (articleId: string, body: unknown) =>
        check({ method: 'PUT', route: a, url: `${pp}/articles/${articleId}`, token: admin, body });
      await put('first', newArticle({ slug: 'first', published: true, related: ['second'] }));
      await put('first', newArticle({ slug: 'first', title: 'First again' }));
      await put('second', newArticle({ slug: 'second', published: true }));
      await put('third', newArticle({ slug: 'second' }));
      await put('bad', { slug: 'x', title: 'x', blocks: [{ type: 'nope' }] });
      await check({ method: 'GET', route: a, url: `${pp}/articles/first`, token: admin });
      await check({ method: 'GET', route: a, url: `${pp}/articles/unknown`, token: admin });
      await check({ method: 'GET', route: `${p}/articles`, url: `${pp}/articles`, token: admin });
      await check({
        method: 'PATCH',
        route: a,
        url: `${pp}/articles/second`,
        token: admin,
        body: { unpublishAt: '2030-01-01T00:00:00Z' },
      });
      await check({
        method: 'PATCH',
        route: a,
        url: `${pp}/articles/second`,
        token: admin,
        body: { publishAt: 'soon' },
      });
      await check({
        method: 'PUT',
        route: `${a}/draft`,
        url: `${pp}/articles/first/draft`,
        token: admin,
        body: newArticle({ slug: 'first-draft' }),
      });
      await check({
        method: 'PUT',
        route: `${a}/draft`,
        url: `${pp}/articles/fresh/draft`,
        token: admin,
        body: newArticle({ slug: 'fresh' }),
      });
      await check({ method: 'DELETE', route: `${a}/draft`, url: `${pp}/articles/fresh/draft`, token: admin });
      await check({ method: 'DELETE', route: `${a}/draft`, url: `${pp}/articles/fresh/draft`, token: admin });
      await check({
        method: 'POST',
        route: `${a}/publish`,
        url: `${pp}/articles/fresh/publish`,
        token: admin,
      });
      await check({
        method: 'POST',
        route: `${a}/unpublish`,
        url: `${pp}/articles/fresh/unpublish`,
        token: admin,
      });
      await check({
        method: 'POST',
        route: `${a}/publish`,
        url: `${pp}/articles/unknown/publish`,
        token: admin,
      });
      const link = (
        await check({
          method: 'POST',
          route: `${a}/preview-link`,
          url: `${pp}/articles/first/preview-link`,
          token: admin,
        })
      ).json().data;
      await check({ method: 'DELETE', route: a, url: `${pp}/articles/fresh`, token: admin });
      await check({ method: 'DELETE', route: a, url: `${pp}/articles/fresh`, token: admin });

      const c = '/api/v1/projects/{projectId}/content';
      const cc = `/api/v1/projects/${id}/content`;
      for (const token of [content.key, preview.key]) {
        // Twice over a socket: the second answer is the fast path's, from the response cache.
        for (const socket of [true, true]) {
          const answer = await check({ method: 'GET', route: c, url: cc, token, socket });
          const headers = { 'if-none-match': String(answer.headers.etag) };
          await check({ method: 'GET', route: c, url: cc, token, socket, headers });
          await check({
            method: 'GET',
            route: `${c}/by-slug/{slug}`,
            url: `${cc}/by-slug/first`,
            token,
            socket,
          });
          await check({ method: 'GET', route: `${c}/sitemap`, url: `${cc}/sitemap`, token, socket });
          await check({ method: 'GET', route: `${c}/changes`, url: `${cc}/changes`, token, socket });
        }
        const list = await check({ method: 'GET', route: c, url: cc, token });
        await check({
          method: 'GET',
          route: c,
          url: cc,
          token,
          headers: { 'if-none-match': String(list.headers.etag) },
        });
        await check({ method: 'GET', route: c, url: `${cc}?page=2&limit=1`, token });
        await check({ method: 'GET', route: c, url: `${cc}?limit=abc`, token });
        await check({ method: 'GET', route: `${c}/by-slug/{slug}`, url: `${cc}/by-slug/first`, token });
        await check({ method: 'GET', route: `${c}/by-slug/{slug}`, url: `${cc}/by-slug/missing`, token });
        await check({ method: 'GET', route: `${c}/sitemap`, url: `${cc}/sitemap`, token });
        const changes = await check({
          method: 'GET',
          route: `${c}/changes`,
          url: `${cc}/changes?limit=1`,
          token,
        });
        await check({
          method: 'GET',
          route: `${c}/changes`,
          url: `${cc}/changes?since=${changes.json().data.cursor}`,
          token,
        });
        await check({ method: 'GET', route: `${c}/changes`, url: `${cc}/changes?since=garbage`, token });
      }
      await check({
        method: 'GET',
        route: `${c}/by-slug/{slug}`,
        url: `${cc}/by-slug/first-draft`,
        token: link.token,
      });
      await check({ method: 'GET', route: c, url: cc, token: link.token });
      await check({ method: 'GET', route: c, url: cc });
      await check({ method: 'GET', route: c, url: cc, token: 'folio_ck_unknown' });
      await check({ method: 'GET', route: c, url: cc, token: admin });
      const other = (await t.admin('POST', P, { name: 'Other' })).json().data.id;
      await check({ method: 'GET', route: c, url: `/api/v1/projects/${other}/content`, token: content.key });
      await check({
        method: 'GET',
        route: `${c}/sitemap`,
        url: `/api/v1/projects/${other}/content/sitemap`,
        token: await t.createKey(other),
      });

      const w = `${p}/webhook`;
      await check({ method: 'GET', route: w, url: `${pp}/webhook`, token: admin });
      await check({ method: 'POST', route: `${w}/test`, url: `${pp}/webhook/test`, token: admin });
      await check({
        method: 'PUT',
        route: w,
        url: `${pp}/webhook`,
        token: admin,
        body: { url: 'gopher://x' },
      });
      await check({
        method: 'PUT',
        route: w,
        url: `${pp}/webhook`,
        token: admin,
        body: { url: 'http://127.0.0.1:9/hook' },
      });
      await check({
        method: 'POST',
        route: `${w}/reveal-secret`,
        url: `${pp}/webhook/reveal-secret`,
        token: admin,
      });
      await check({
        method: 'POST',
        route: `${w}/rotate-secret`,
        url: `${pp}/webhook/rotate-secret`,
        token: admin,
      });
      await check({ method: 'POST', route: `${w}/test`, url: `${pp}/webhook/test`, token: admin });
      const deliveries = (
        await check({
          method: 'GET',
          route: `${w}/deliveries`,
          url: `${pp}/webhook/deliveries`,
          token: admin,
        })
      ).json().data;
      await check({
        method: 'GET',
        route: `${w}/deliveries`,
        url: `${pp}/webhook/deliveries?page=0`,
        token: admin,
      });
      await check({
        method: 'POST',
        route: `${w}/deliveries/{deliveryId}/retry`,
        url: `${pp}/webhook/deliveries/${deliveries[0].id}/retry`,
        token: admin,
      });
      await check({
        method: 'POST',
        route: `${w}/deliveries/{deliveryId}/retry`,
        url: `${pp}/webhook/deliveries/dlv_x/retry`,
        token: admin,
      });

      for (const route of [
        '/healthz',
        '/readyz',
        '/public/v1/fixtures/article',
        '/public/v1/schema/blocks.json',
        '/public/v1/openapi.json',
      ]) {
        const answer = await check({ method: 'GET', route, url: route });
        await check({
          method: 'GET',
          route,
          url: route,
          headers: { 'if-none-match': String(answer.headers.etag) },
        });
      }
      await check({ method: 'GET', route: '/metrics', url: '/metrics', token: admin });
      await check({ method: 'GET', route: '/metrics', url: '/metrics' });
      const locked = { 'x-forwarded-for': '203.0.113.9' };
      for (let attempt = 0; attempt <= AUTH_FAILURES; attempt++) {
        await check({ method: 'GET', route: c, url: cc, token: 'folio_ck_guess', headers: locked });
      }
      const refused = await check({ method: 'GET', route: c, url: cc, token: content.key, headers: locked });
      assert.equal(refused.statusCode, 429);

      assert.deepEqual(problems, []);
    });

    test('every documented operation was called', () => {
      const all = Object.entries(document.paths).flatMap(([route, methods]) =>
        Object.keys(methods).map((method) => `${method} ${route}`),
      );
      assert.deepEqual(
        all.filter((operation) => !seen.has(operation)),
        [],
      );
    });
  });
}
