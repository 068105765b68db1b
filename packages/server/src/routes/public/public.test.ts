import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { BLOCK_SCHEMAS, BLOCK_TYPES, type BlockType } from '@folio/schema';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { LightMyRequestResponse } from 'fastify';
import { DIALECTS } from '../../test/databases.ts';
import { createTestApp, newArticle, TEST_BASE_URL, type TestApp } from '../../test/test-app.ts';

type Json = Record<string, unknown>;

const PUBLIC_GETS = [
  '/public/v1/fixtures/article',
  '/public/v1/schema/blocks.json',
  '/public/v1/openapi.json',
];
const ORIGIN = 'https://www.customer.example';
const isoTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Every route of the app, as OpenAPI spells its path. */
const ROUTES: Array<[method: string, path: string]> = [
  ['get', '/healthz'],
  ['get', '/readyz'],
  ['get', '/public/v1/fixtures/article'],
  ['get', '/public/v1/schema/blocks.json'],
  ['get', '/public/v1/openapi.json'],
  ['get', '/api/v1/projects/{projectId}/content'],
  ['get', '/api/v1/projects/{projectId}/content/by-slug/{slug}'],
  ['get', '/api/v1/projects/{projectId}/content/sitemap'],
  ['get', '/api/v1/projects/{projectId}/content/changes'],
  ['post', '/admin/v1/projects'],
  ['get', '/admin/v1/projects'],
  ['get', '/admin/v1/projects/{projectId}'],
  ['patch', '/admin/v1/projects/{projectId}'],
  ['post', '/admin/v1/projects/{projectId}/keys'],
  ['get', '/admin/v1/projects/{projectId}/keys'],
  ['delete', '/admin/v1/projects/{projectId}/keys/{keyId}'],
  ['put', '/admin/v1/projects/{projectId}/articles/{articleId}'],
  ['get', '/admin/v1/projects/{projectId}/articles'],
  ['get', '/admin/v1/projects/{projectId}/articles/{articleId}'],
  ['post', '/admin/v1/projects/{projectId}/articles/{articleId}/publish'],
  ['post', '/admin/v1/projects/{projectId}/articles/{articleId}/unpublish'],
  ['patch', '/admin/v1/projects/{projectId}/articles/{articleId}'],
  ['delete', '/admin/v1/projects/{projectId}/articles/{articleId}'],
  ['put', '/admin/v1/projects/{projectId}/articles/{articleId}/draft'],
  ['delete', '/admin/v1/projects/{projectId}/articles/{articleId}/draft'],
  ['post', '/admin/v1/projects/{projectId}/articles/{articleId}/preview-link'],
];

/** The smallest valid block of each type: only the required fields. */
const MINIMAL: Record<BlockType, Json> = {
  heading: { type: 'heading', level: 2, text: 'A heading' },
  paragraph: { type: 'paragraph', content: [{ text: 'Some text.' }] },
  list: { type: 'list', ordered: false, items: [[{ text: 'One' }], [{ text: 'Two' }]] },
  quote: { type: 'quote', content: [{ text: 'Said once.' }] },
  code: { type: 'code', code: 'let x = 1;' },
  image: { type: 'image', url: 'https://cdn.example.com/a.png', alt: 'A picture' },
  callout: { type: 'callout', variant: 'info', content: [{ text: 'Note this.' }] },
  cta: { type: 'cta', heading: 'Try it', buttonLabel: 'Start', buttonHref: '/start' },
  faq: { type: 'faq', items: [{ question: 'Why?', answer: [{ text: 'Because.' }] }] },
  table: { type: 'table', headers: ['a', 'b'], rows: [['1', '2']] },
  video: {
    type: 'video',
    provider: 'youtube',
    videoId: 'dQw4w9WgXcQ',
    url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
    title: 'A video',
  },
};

function requiredFields(type: BlockType): string[] {
  return [...((BLOCK_SCHEMAS[type] as { required?: string[] }).required ?? [])];
}

function without(object: Json, field: string): Json {
  const { [field]: _dropped, ...rest } = object;
  return rest;
}

function paragraphWith(run: Json): Json {
  return { type: 'paragraph', content: [run] };
}

async function get(
  t: TestApp,
  url: string,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return t.app.inject({ method: 'GET', url, headers });
}

async function fetchBlocksValidator(t: TestApp): Promise<ValidateFunction> {
  const response = await get(t, '/public/v1/schema/blocks.json');
  assert.equal(response.statusCode, 200);
  return new Ajv2020({ strict: true, allErrors: true }).compile(response.json());
}

function assertContractError(response: LightMyRequestResponse, status: number, code: string): void {
  assert.equal(response.statusCode, status, response.body);
  assert.match(String(response.headers['content-type']), /^application\/json/);
  const body = response.json();
  assert.equal(body.success, false);
  assert.equal(body.error.code, code);
  assert.equal(typeof body.error.message, 'string');
  assert.ok(body.error.message.length > 0);
}

for (const dialect of DIALECTS) {
  describe(`public API: example article [${dialect}]`, () => {
    let t: TestApp;
    beforeEach(async () => {
      t = await createTestApp(dialect);
    });
    afterEach(() => t.close());

    test('is served without a key with every article field and every block type', async () => {
      const response = await get(t, '/public/v1/fixtures/article');
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.equal(body.success, true);
      assert.deepEqual(Object.keys(body.data).sort(), [
        'blocks',
        'id',
        'publishedAt',
        'related',
        'seo',
        'slug',
        'title',
        'updatedAt',
      ]);
      for (const field of ['id', 'slug', 'title']) assert.equal(typeof body.data[field], 'string', field);
      for (const field of ['publishedAt', 'updatedAt']) assert.match(body.data[field], isoTimestamp, field);
      const types = new Set(body.data.blocks.map((block: { type: string }) => block.type));
      assert.deepEqual([...types].sort(), [...BLOCK_TYPES].sort());
    });

    test('uses every optional field of every block type', async () => {
      const blocks: Json[] = (await get(t, '/public/v1/fixtures/article')).json().data.blocks;
      for (const type of BLOCK_TYPES) {
        const ofType = blocks.filter((block) => block.type === type);
        const schema = BLOCK_SCHEMAS[type] as { properties: Json; required?: string[] };
        for (const field of Object.keys(schema.properties)) {
          assert.ok(
            ofType.some((block) => field in block),
            `a ${type} block with ${field}`,
          );
        }
      }
    });

    test('its blocks validate against the served schema (Ajv 2020, strict)', async () => {
      const validate = await fetchBlocksValidator(t);
      const { blocks } = (await get(t, '/public/v1/fixtures/article')).json().data;
      assert.ok(validate(blocks), JSON.stringify(validate.errors, null, 2));
    });

    test('seo has every contract field; canonical paths have no trailing slash', async () => {
      const { slug, seo, related } = (await get(t, '/public/v1/fixtures/article')).json().data;
      assert.deepEqual(Object.keys(seo).sort(), [
        'canonicalPath',
        'description',
        'jsonLd',
        'ogDescription',
        'ogImage',
        'ogTitle',
        'ogType',
        'title',
      ]);
      for (const field of ['title', 'description', 'ogTitle', 'ogDescription']) {
        assert.equal(typeof seo[field], 'string', field);
        assert.ok(seo[field].length > 0, field);
      }
      assert.ok(seo.ogImage === null || /^https?:\/\//.test(seo.ogImage), String(seo.ogImage));
      assert.equal(seo.ogType, 'article');
      assert.equal(typeof seo.jsonLd, 'object');
      assert.ok(seo.jsonLd !== null && !Array.isArray(seo.jsonLd));
      assert.ok(seo.canonicalPath.startsWith('/'), seo.canonicalPath);
      assert.ok(seo.canonicalPath.endsWith(`/${encodeURIComponent(slug)}`), seo.canonicalPath);
      assert.ok(!seo.canonicalPath.endsWith('/'), seo.canonicalPath);

      assert.ok(Array.isArray(related) && related.length > 0, 'a related list');
      for (const item of related) {
        assert.deepEqual(Object.keys(item).sort(), ['canonicalPath', 'id', 'slug', 'title']);
        assert.ok(item.canonicalPath.endsWith(`/${encodeURIComponent(item.slug)}`), item.canonicalPath);
        assert.ok(!item.canonicalPath.endsWith('/'), item.canonicalPath);
      }
    });
  });

  describe(`public API: block schema [${dialect}]`, () => {
    let t: TestApp;
    let validate: ValidateFunction;
    beforeEach(async () => {
      t = await createTestApp(dialect);
      validate = await fetchBlocksValidator(t);
    });
    afterEach(() => t.close());

    const accepts = (blocks: unknown[], what: string) =>
      assert.ok(validate(blocks), `${what} should be accepted: ${JSON.stringify(validate.errors)}`);
    const refuses = (blocks: unknown[], what: string) =>
      assert.equal(validate(blocks), false, `${what} should be refused: ${JSON.stringify(blocks)}`);

    test('is a draft 2020-12 document with $id on the base URL', async () => {
      const schema = (await get(t, '/public/v1/schema/blocks.json')).json();
      assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
      assert.equal(schema.$id, `${TEST_BASE_URL}/public/v1/schema/blocks.json`);
      assert.equal(schema.type, 'array');
    });

    test('$id follows another base URL, and ingest still validates against it', async () => {
      for (const baseUrl of ['https://cms.example.org', 'https://cms.example.org/']) {
        const other = await createTestApp(dialect, { baseUrl });
        try {
          const schema = (await get(other, '/public/v1/schema/blocks.json')).json();
          assert.equal(schema.$id, 'https://cms.example.org/public/v1/schema/blocks.json');
          const { id } = await other.createProject();
          await other.putArticle(id, 'a1', newArticle({ blocks: Object.values(MINIMAL) as never }));
          const refused = await other.admin('PUT', `/admin/v1/projects/${id}/articles/a2`, {
            ...newArticle(),
            blocks: [{ type: 'heading', level: 1, text: 'x' }],
          });
          assertContractError(refused, 400, 'invalid_body');
        } finally {
          await other.close();
        }
      }
    });

    test('accepts a minimal block of every type, alone and together', () => {
      for (const type of BLOCK_TYPES) accepts([MINIMAL[type]], type);
      accepts(Object.values(MINIMAL), 'all types');
      accepts([], 'no blocks');
    });

    test('heading level: 2, 3 and 4 accepted; 1, 5 and non-integers refused', () => {
      for (const level of [2, 3, 4]) accepts([{ ...MINIMAL.heading, level }], `level ${level}`);
      for (const level of [1, 5, 0, 3.5, '3', null])
        refuses([{ ...MINIMAL.heading, level }], `level ${level}`);
    });

    test('callout variant: info, tip and warning accepted; danger refused', () => {
      for (const variant of ['info', 'tip', 'warning']) accepts([{ ...MINIMAL.callout, variant }], variant);
      for (const variant of ['danger', 'Info', '']) refuses([{ ...MINIMAL.callout, variant }], variant);
    });

    test('rel: 80 characters accepted, 81 refused', () => {
      accepts([paragraphWith({ text: 'x', href: 'https://example.com', rel: 'n'.repeat(80) })], 'rel of 80');
      refuses([paragraphWith({ text: 'x', href: 'https://example.com', rel: 'n'.repeat(81) })], 'rel of 81');
      refuses(
        [{ ...MINIMAL.faq, items: [{ question: 'q', answer: [{ text: 'a', rel: 'n'.repeat(81) }] }] }],
        'faq',
      );
      refuses([{ ...MINIMAL.list, items: [[{ text: 'a', rel: 'n'.repeat(81) }]] }], 'list');
    });

    test('text runs: marks are booleans, links are http(s), site paths or anchors', () => {
      accepts(
        [
          paragraphWith({
            text: 'x',
            bold: true,
            italic: false,
            code: true,
            href: '#intro',
            rel: 'nofollow',
          }),
        ],
        'every mark',
      );
      for (const href of ['https://example.com/a?b#c', 'HTTP://example.com', '/blog/post', '/', '#top']) {
        accepts([paragraphWith({ text: 'x', href })], href);
      }
      for (const href of [
        'javascript:alert(1)',
        ' JaVaScRiPt:x',
        'data:text/html,x',
        'vbscript:x',
        '//evil.example',
        '/\\evil.example',
        'java\tscript:x',
        'mailto:a@example.com',
        '',
      ]) {
        refuses([paragraphWith({ text: 'x', href })], JSON.stringify(href));
        refuses([{ ...MINIMAL.cta, buttonHref: href }], `buttonHref ${JSON.stringify(href)}`);
      }
      refuses([paragraphWith({ text: 'x', bold: 'yes' })], 'bold as a string');
      refuses([paragraphWith({ text: 'x', underline: true })], 'an unknown mark');
      refuses([paragraphWith({ bold: true })], 'a run without text');
    });

    test('video: provider is youtube only; videoId is 11 of A-Z a-z 0-9 _ -', () => {
      accepts([{ ...MINIMAL.video, videoId: 'a-Z_09b-Z_9' }], 'every character class');
      refuses([{ ...MINIMAL.video, provider: 'vimeo' }], 'vimeo');
      for (const videoId of ['dQw4w9WgXc', 'dQw4w9WgXcQQ', 'dQw4w9WgXc!', 'dQw4w9WgXc ', '']) {
        refuses([{ ...MINIMAL.video, videoId }], `videoId ${JSON.stringify(videoId)}`);
      }
    });

    test('a missing required field is refused for every block type', () => {
      for (const type of BLOCK_TYPES) {
        const required = requiredFields(type);
        assert.ok(required.includes('type') && required.length >= 2, type);
        for (const field of required) refuses([without(MINIMAL[type], field)], `${type} without ${field}`);
      }
      refuses([{ ...MINIMAL.faq, items: [{ question: 'q' }] }], 'faq item without answer');
      refuses([{ ...MINIMAL.faq, items: [{ answer: [] }] }], 'faq item without question');
    });

    test('an optional string id is accepted on every block type; other ids are refused', () => {
      for (const type of BLOCK_TYPES) {
        accepts([{ ...MINIMAL[type], id: `${type}-1` }], `${type} with id`);
        refuses([{ ...MINIMAL[type], id: 7 }], `${type} with a numeric id`);
      }
    });

    test('unknown types, unknown fields and non-objects are refused', () => {
      for (const type of ['html', 'Heading', 'script', '', 'constructor']) {
        refuses([{ type, text: 'x' }], `type ${JSON.stringify(type)}`);
      }
      refuses([{ text: 'x' }], 'no type');
      for (const type of BLOCK_TYPES)
        refuses([{ ...MINIMAL[type], extra: 1 }], `${type} with an unknown field`);
      for (const block of [null, 'paragraph', 3, [MINIMAL.paragraph]])
        refuses([block], JSON.stringify(block));
    });
  });

  describe(`public API: OpenAPI [${dialect}]`, () => {
    let t: TestApp;
    beforeEach(async () => {
      t = await createTestApp(dialect);
    });
    afterEach(() => t.close());

    test('is OpenAPI 3.1 and documents every route of the app with its method', async () => {
      const response = await get(t, '/public/v1/openapi.json');
      assert.equal(response.statusCode, 200);
      const document = response.json();
      assert.match(document.openapi, /^3\.1\.\d+$/);
      assert.equal(typeof document.info?.title, 'string');
      for (const [method, path] of ROUTES) {
        const url = path.replace(/\{(\w+)\}/g, ':$1');
        assert.ok(
          t.app.hasRoute({ method: method.toUpperCase() as 'GET', url }),
          `the app has ${method} ${url}`,
        );
        const operation = document.paths[path]?.[method];
        assert.ok(operation, `OpenAPI documents ${method.toUpperCase()} ${path}`);
        assert.ok(Object.keys(operation.responses ?? {}).length > 0, `${method} ${path} has responses`);
        const declared = (operation.parameters ?? [])
          .filter(
            (parameter: { in: string; required?: boolean }) => parameter.in === 'path' && parameter.required,
          )
          .map((parameter: { name: string }) => parameter.name);
        const templated = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
        assert.deepEqual(declared.sort(), templated.sort(), `${method} ${path}: path parameters`);
      }
    });

    test('delivery operations declare bearer security, admin ones too, public ones none', async () => {
      const document = (await get(t, '/public/v1/openapi.json')).json();
      const schemes = document.components.securitySchemes;
      const bearerSchemesOf = (operation: { security?: Array<Record<string, unknown>> }) =>
        (operation.security ?? [])
          .flatMap((requirement) => Object.keys(requirement))
          .filter((name) => {
            const scheme = schemes[name];
            return scheme?.type === 'http' && scheme.scheme === 'bearer';
          });
      for (const [method, path] of ROUTES) {
        const operation = document.paths[path][method];
        if (path.startsWith('/api/') || path.startsWith('/admin/')) {
          assert.ok(bearerSchemesOf(operation).length > 0, `${method} ${path} declares bearer security`);
        } else {
          assert.deepEqual(operation.security, [], `${method} ${path} says it needs no credential`);
        }
      }
      const deliveryScheme = bearerSchemesOf(document.paths['/api/v1/projects/{projectId}/content'].get)[0];
      const adminScheme = bearerSchemesOf(document.paths['/admin/v1/projects'].get)[0];
      assert.notEqual(deliveryScheme, adminScheme, 'content keys and the admin token are different schemes');
    });
  });

  describe(`public API: CORS [${dialect}]`, () => {
    let t: TestApp;
    beforeEach(async () => {
      t = await createTestApp(dialect);
    });
    afterEach(() => t.close());

    const preflight = (url: string) =>
      t.app.inject({
        method: 'OPTIONS',
        url,
        headers: { origin: ORIGIN, 'access-control-request-method': 'GET' },
      });

    test('public resources and health checks allow any origin, and their preflight is answered', async () => {
      for (const url of [...PUBLIC_GETS, '/healthz', '/readyz']) {
        const response = await get(t, url, { origin: ORIGIN });
        assert.equal(response.statusCode, 200, url);
        assert.equal(response.headers['access-control-allow-origin'], '*', url);
        const options = await preflight(url);
        assert.ok(options.statusCode >= 200 && options.statusCode < 300, `${url}: ${options.statusCode}`);
        assert.equal(options.headers['access-control-allow-origin'], '*', url);
        assert.match(String(options.headers['access-control-allow-methods']), /\bGET\b/, url);
        // Without a preflight's headers: no plain-text 400 outside the contract's error shape.
        const plain = await t.app.inject({ method: 'OPTIONS', url });
        assert.equal(plain.statusCode, 204, `plain OPTIONS of ${url}`);
        assert.equal(plain.body, '', url);
      }
    });

    test('an unknown public path answers 404 to any origin, as its preflight promised', async () => {
      for (const url of [
        '/public/v1/nothing-here',
        '/public/v1/openapi.json/',
        '/public/v1/schema/blocks.json/x',
      ]) {
        const options = await preflight(url);
        assert.equal(options.headers['access-control-allow-origin'], '*', `preflight of ${url}`);
        const response = await get(t, url, { origin: ORIGIN });
        assertContractError(response, 404, 'not_found');
        assert.equal(response.headers['access-control-allow-origin'], '*', url);
      }
      const posted = await t.app.inject({
        method: 'POST',
        url: '/public/v1/openapi.json',
        headers: { origin: ORIGIN },
      });
      assertContractError(posted, 404, 'not_found');
      assert.equal(posted.headers['access-control-allow-origin'], '*');
      // Outside the public API a 404 stays without CORS.
      const elsewhere = await get(t, '/api/v1/nothing-here', { origin: ORIGIN });
      assert.equal(elsewhere.statusCode, 404);
      assert.equal(elsewhere.headers['access-control-allow-origin'], undefined);
    });

    test('the delivery and management APIs send no CORS headers, not even to a preflight', async () => {
      const { id } = await t.createProject({ websiteUrl: 'https://www.customer.example' });
      const key = await t.createKey(id);
      const urls = [
        `/api/v1/projects/${id}/content`,
        `/api/v1/projects/${id}/content/sitemap`,
        '/admin/v1/projects',
        `/admin/v1/projects/${id}`,
      ];
      for (const url of urls) {
        const token = url.startsWith('/api/') ? key : 'test-admin-token-0123456789';
        const answered = await get(t, url, { origin: ORIGIN, authorization: `Bearer ${token}` });
        assert.ok(answered.statusCode < 400, `${url}: ${answered.statusCode}`);
        assert.equal(answered.headers['access-control-allow-origin'], undefined, url);
        const refused = await get(t, url, { origin: ORIGIN });
        assert.equal(refused.statusCode, 401, url);
        assert.equal(refused.headers['access-control-allow-origin'], undefined, url);
        const options = await preflight(url);
        assert.equal(options.headers['access-control-allow-origin'], undefined, `preflight of ${url}`);
        assert.equal(options.headers['access-control-allow-methods'], undefined, `preflight of ${url}`);
      }
    });
  });

  describe(`health [${dialect}]`, () => {
    let t: TestApp;
    beforeEach(async () => {
      t = await createTestApp(dialect);
    });
    afterEach(() => t.close());

    test('/healthz and /readyz answer 200 while the database answers', async () => {
      for (const url of ['/healthz', '/readyz']) {
        const response = await get(t, url);
        assert.equal(response.statusCode, 200, url);
        assert.equal(response.json().success, true, url);
      }
    });

    test('/readyz answers 503 unavailable once the database is gone; /healthz stays 200', async () => {
      await t.database.close();
      const response = await get(t, '/readyz');
      assertContractError(response, 503, 'unavailable');
      assert.equal(
        response.headers['access-control-allow-origin'],
        '*',
        'a status page elsewhere can read it',
      );
      assert.doesNotMatch(response.body, /sqlite|postgres|pool|destroy|Error:|at /i);
      assert.equal((await get(t, '/healthz')).statusCode, 200);
    });
  });

  describe(`conditional GETs and unknown routes [${dialect}]`, () => {
    let t: TestApp;
    beforeEach(async () => {
      t = await createTestApp(dialect);
    });
    afterEach(() => t.close());

    test('public GETs carry a strong ETag that is stable and follows the content', async () => {
      for (const url of PUBLIC_GETS) {
        const first = await get(t, url);
        const etag = first.headers.etag;
        assert.match(String(etag), /^"[^"]+"$/, `${url}: a strong ETag`);
        assert.equal((await get(t, url)).headers.etag, etag, `${url}: the same bytes, the same tag`);
      }
      const other = await createTestApp(dialect, { baseUrl: 'https://cms.example.org' });
      try {
        const url = '/public/v1/schema/blocks.json';
        assert.notEqual((await get(other, url)).headers.etag, (await get(t, url)).headers.etag);
      } finally {
        await other.close();
      }
    });

    test('a matching If-None-Match answers 304 with no body: exact, W/, in a list, or *', async () => {
      for (const url of PUBLIC_GETS) {
        const full = await get(t, url);
        const etag = String(full.headers.etag);
        for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, `"a","b" ,  W/${etag}`, '*']) {
          const response = await get(t, url, { 'if-none-match': ifNoneMatch });
          assert.equal(response.statusCode, 304, `${url} with If-None-Match: ${ifNoneMatch}`);
          assert.equal(response.body, '', `${url}: no body`);
          assert.equal(response.headers.etag, etag, `${url}: the 304 names the tag`);
          assert.equal(response.headers['content-type'], undefined, `${url}: no content-type`);
          // RFC 9110 8.6: a 304 may only carry the Content-Length the 200 would have had.
          const length = response.headers['content-length'];
          assert.ok(
            length === undefined || length === full.headers['content-length'],
            `${url}: length ${length}`,
          );
        }
      }
    });

    test('HEAD answers the same ETag as GET, and 304 when it matches', async () => {
      for (const url of PUBLIC_GETS) {
        const etag = String((await get(t, url)).headers.etag);
        const head = await t.app.inject({ method: 'HEAD', url });
        assert.equal(head.statusCode, 200, url);
        assert.equal(head.headers.etag, etag, url);
        const conditional = await t.app.inject({ method: 'HEAD', url, headers: { 'if-none-match': etag } });
        assert.equal(conditional.statusCode, 304, url);
        assert.equal(conditional.body, '', url);
        const length = conditional.headers['content-length'];
        assert.ok(
          length === undefined || length === head.headers['content-length'],
          `${url}: length ${length}`,
        );
      }
    });

    test('a non-matching If-None-Match answers 200 with the body', async () => {
      const url = '/public/v1/fixtures/article';
      const etag = String((await get(t, url)).headers.etag);
      for (const ifNoneMatch of ['"stale"', `"${etag.slice(1, -1)}x"`, 'W/"stale", "older"']) {
        const response = await get(t, url, { 'if-none-match': ifNoneMatch });
        assert.equal(response.statusCode, 200, ifNoneMatch);
        assert.equal(response.json().success, true);
      }
    });

    test('unknown routes answer 404 JSON in the contract error shape', async () => {
      for (const [method, url] of [
        ['GET', '/nope'],
        ['GET', '/public/v1/nope'],
        ['GET', '/public/v2/fixtures/article'],
        ['POST', '/public/v1/fixtures/article'],
        ['DELETE', '/healthz'],
        ['GET', '/api/v1'],
      ] as const) {
        const response = await t.app.inject({ method, url });
        assertContractError(response, 404, 'not_found');
      }
    });

    test("a HEAD of an unknown route has its GET's headers, Content-Length included", async () => {
      for (const url of ['/nope', '/public/v1/nope', '/admin/v1/nope?x=1']) {
        const got = await t.app.inject({ method: 'GET', url });
        const head = await t.app.inject({ method: 'HEAD', url });
        assert.equal(head.statusCode, 404, url);
        assert.equal(head.body, '', url);
        assert.equal(head.headers['content-length'], got.headers['content-length'], url);
      }
    });
  });
}
