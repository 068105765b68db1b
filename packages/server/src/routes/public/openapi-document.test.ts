import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { WEBHOOK_EVENT_NAMES } from '@folio/schema';
import { Validator } from '@seriousme/openapi-schema-validator';
import openapiTS, { astToString } from 'openapi-typescript';
import { createTestApp, newArticle, type TestApp } from '../../test/test-app.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));
// Not localhost nor example.com: Redocly's recommended rules warn about both in `servers`.
const BASE_URL = 'https://cms.folio.test';
const VERB_FIRST =
  /^(get|list|create|update|put|delete|publish|unpublish|schedule|revoke|set|reveal|rotate|send|retry)[A-Z]\w*$/;

type Operation = {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: unknown[];
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
};
type WebhookOperation = {
  parameters: { name: string }[];
  security: unknown[];
  requestBody: {
    content: {
      'application/json': {
        schema: {
          required: string[];
          properties: { event: { const: string }; data: { properties: Record<string, unknown> } };
        };
      };
    };
  };
};
type Document = {
  servers: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
};

describe('the OpenAPI document, as tools nobody here wrote read it', () => {
  let t: TestApp;
  let document: Document;
  let dir: string;
  let file: string;
  before(async () => {
    t = await createTestApp('sqlite', { baseUrl: BASE_URL });
    document = (await t.app.inject({ method: 'GET', url: '/public/v1/openapi.json' })).json();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-openapi-'));
    file = path.join(dir, 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(document, null, 2));
  });
  after(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const operations = () =>
    Object.entries(document.paths).flatMap(([route, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        label: `${method.toUpperCase()} ${route}`,
        operation,
      })),
    );

  test('every operation has a unique verb-first operationId, a summary, tags, 4xx answers and security', () => {
    const ids = new Set<string>();
    for (const { label, operation } of operations()) {
      assert.match(operation.operationId ?? '', VERB_FIRST, label);
      assert.ok(!ids.has(operation.operationId!), `${label}: ${operation.operationId} is taken`);
      ids.add(operation.operationId!);
      assert.ok(operation.summary, `${label}: summary`);
      assert.ok(operation.tags?.length, `${label}: tags`);
      assert.ok(Array.isArray(operation.security), `${label}: explicit security`);
      const errors = Object.keys(operation.responses ?? {}).filter((status) => /^4/.test(status));
      assert.ok(errors.length > 0, `${label}: 4xx answers`);
      for (const status of errors) {
        const schema = JSON.stringify(operation.responses![status]!.content?.['application/json']?.schema);
        assert.match(schema, /"success"/, `${label} ${status}: the contract's error shape`);
      }
    }
    for (const id of ['listContent', 'getContentBySlug', 'getSitemap', 'createContentKey', 'putDraft']) {
      assert.ok(ids.has(id), id);
    }
  });

  test("a delivery answer's description names only the credentials its operation accepts", () => {
    for (const { label, operation } of operations().filter((entry) => entry.label.includes(' /api/'))) {
      const takesToken = JSON.stringify(operation.security).includes('previewToken');
      const description =
        (operation.responses?.['200'] as { description?: string } | undefined)?.description ?? '';
      assert.equal(/token/i.test(description), takesToken, `${label}: ${description}`);
    }
  });

  test('documents each webhook event: its body, signed headers and signature scheme', () => {
    const webhooks = (document as unknown as { webhooks: Record<string, { post: WebhookOperation }> })
      .webhooks;
    assert.deepEqual(Object.keys(webhooks), [...WEBHOOK_EVENT_NAMES]);
    for (const [name, { post }] of Object.entries(webhooks)) {
      const body = post.requestBody.content['application/json'].schema;
      assert.equal(body.properties.event.const, name);
      assert.deepEqual(body.required, ['event', 'projectId', 'timestamp', 'data']);
      assert.deepEqual(
        post.parameters.map((p) => p.name),
        ['webhook-id', 'webhook-timestamp'],
      );
      assert.deepEqual(post.security, [{ webhookSignature: [] }]);
    }
    const updated = webhooks['content.updated']!.post.requestBody.content['application/json'].schema;
    assert.deepEqual(Object.keys(updated.properties.data.properties), ['id', 'slug', 'previousSlug']);
    const schemes = (document.components as unknown as { securitySchemes: Record<string, { name?: string }> })
      .securitySchemes;
    assert.equal(schemes.webhookSignature!.name, 'webhook-signature');
  });

  test('is self-contained: every $ref points inside it, the block schema is a component', async () => {
    const refs = [...JSON.stringify(document).matchAll(/"\$ref":"([^"]*)"/g)].map((match) => match[1]!);
    assert.ok(refs.length > 0);
    for (const ref of refs) {
      assert.ok(ref.startsWith('#/components/schemas/'), ref);
      assert.ok(document.components.schemas[ref.slice('#/components/schemas/'.length)], `${ref} exists`);
    }
    assert.deepEqual(document.servers, [{ url: BASE_URL }]);
    // The served block schema stays what ingest validates with: its own document with its $id.
    const served = (await t.app.inject({ method: 'GET', url: '/public/v1/schema/blocks.json' })).json();
    assert.equal(served.$id, `${BASE_URL}/public/v1/schema/blocks.json`);
    const blocks = document.components.schemas.Blocks as { items: { $ref: string } };
    assert.equal(blocks.items.$ref, '#/components/schemas/Block');
    assert.deepEqual(Object.keys(served.$defs).length + 1, Object.keys(document.components.schemas).length);
  });

  test('Redocly CLI, recommended rules: no errors, no warnings', async () => {
    const cli = path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
    const { stdout } = await run(
      process.execPath,
      [cli, 'lint', file, '--config', path.join(ROOT, 'redocly.yaml'), '--format=json'],
      {
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        timeout: 60_000,
      },
    ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string }[];
    };
    assert.deepEqual(
      report.problems.map((problem) => `${problem.ruleId}: ${problem.message}`),
      [],
    );
    assert.deepEqual(report.totals, { ...report.totals, errors: 0, warnings: 0 });
  });

  test('a second, independent validator accepts the saved file offline', async () => {
    const result = await new Validator().validate(JSON.parse(fs.readFileSync(file, 'utf8')));
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2)?.slice(0, 2000));
  });

  test('openapi-typescript makes a client that type-checks and reads a real server', async () => {
    const { id: projectId } = await t.createProject({ websiteUrl: 'https://www.customer.test' });
    const key = await t.createKey(projectId);
    await t.putArticle(
      projectId,
      'generated',
      newArticle({ slug: 'generated', title: 'Generated', published: true }),
    );
    const origin = await t.app.listen({ port: 0, host: '127.0.0.1' });

    fs.writeFileSync(path.join(dir, 'schema.d.ts'), astToString(await openapiTS(document as never)));
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    fs.writeFileSync(
      path.join(dir, 'client.ts'),
      `import createClient from 'openapi-fetch';
import type { paths } from './schema.d.ts';

const [origin, projectId, key] = process.argv.slice(2) as [string, string, string];
const client = createClient<paths>({ baseUrl: origin, headers: { authorization: \`Bearer \${key}\` } });
const params = { path: { projectId } };
const list = await client.GET('/api/v1/projects/{projectId}/content', { params: { ...params, query: { limit: 5 } } });
const page: number | undefined = list.data?.pagination.page;
const bySlug = await client.GET('/api/v1/projects/{projectId}/content/by-slug/{slug}', {
  params: { path: { projectId, slug: 'generated' } },
});
const sitemap = await client.GET('/api/v1/projects/{projectId}/content/sitemap', { params });
const title: string | undefined = bySlug.data?.data.title;
process.stdout.write(JSON.stringify({ page, count: list.data?.data.length, title, urls: sitemap.data?.data.map((entry) => entry.url) }));
`,
    );
    await run(
      process.execPath,
      [
        path.join(ROOT, 'node_modules/typescript/bin/tsc'),
        '--noEmit',
        '--strict',
        '--target',
        'es2022',
        '--module',
        'nodenext',
        '--allowImportingTsExtensions',
        '--skipLibCheck',
        path.join(dir, 'client.ts'),
      ],
      { cwd: dir, timeout: 120_000 },
    ).catch((error: { stdout?: string }) => assert.fail(`tsc: ${error.stdout}`));
    const { stdout } = await run(process.execPath, [path.join(dir, 'client.ts'), origin, projectId, key], {
      cwd: dir,
      timeout: 30_000,
    });
    assert.deepEqual(JSON.parse(stdout), {
      page: 1,
      count: 1,
      title: 'Generated',
      urls: ['https://www.customer.test/generated'],
    });
  });
});
