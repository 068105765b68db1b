import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * The client as a user gets it: built, packed with `npm pack`, installed into an empty project
 * with nothing but its declared dependencies, then imported and type-checked there.
 */

const packageDir = fileURLToPath(new URL('../', import.meta.url));
const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');
// standardwebhooks' own .d.ts names `Buffer`, so a consumer needs @types/node; this repo's will do.
const typeRoots = dirname(dirname(require.resolve('@types/node/package.json')));
const FORBIDDEN = /['"](?:@folio\/schema|@sinclair\/typebox|ajv)(?:\/[^'"]*)?['"]/;

// npm runs on this Node (24), and without the npm_* settings of an enclosing `npm test`.
const childEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
childEnv.PATH = `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`;

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, env: childEnv, encoding: 'utf8', timeout: 60_000 });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  assert.equal(result.status, 0, `${command} ${args.join(' ')} failed:\n${output}${result.error ?? ''}`);
  return result.stdout;
}

const consumerScript = `
import { renderBlocks, safeHref, verifyWebhook } from '@folio/client';
import { createWebhookHandler } from '@folio/client/node';
import { Webhook } from 'standardwebhooks';

const html = renderBlocks([
  { type: 'paragraph', content: [
    { text: 'docs', href: 'https://example.com/docs' },
    { text: ' & ', bold: true },
    { text: 'evil', href: 'javascript:alert(1)' },
  ] },
  { type: 'image', url: 'data:image/png;base64,AAAA', alt: 'x' },
  { type: 'carousel' },
]);
const hrefs = ['/blog/a', '#top', '//evil.example', '/\\\\evil.example', 'javascript:alert(1)'].map(safeHref);

const secret = 'whsec_' + btoa('0123456789abcdef0123456789abcdef');
const body = JSON.stringify({ event: 'webhook.test', projectId: 'p1', timestamp: new Date().toISOString(), data: {} });
const now = new Date();
const headers = {
  'webhook-id': 'msg_1',
  'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
  'webhook-signature': new Webhook(secret).sign('msg_1', now, body),
};
const event = verifyWebhook(body, headers, secret);

console.log(JSON.stringify({
  html, hrefs, event: event.event, handler: typeof createWebhookHandler,
  resolved: import.meta.resolve('@folio/client'),
}));
`;

const consumerTypes = `
import { type Article, type Block, renderBlocks } from '@folio/client';

const blocks: Block[] = [{ type: 'heading', level: 2, text: 'Hi' }];
export const html: string = renderBlocks(blocks);
export const title = (article: Article): string => article.seo.ogImage ?? article.blocks[0]?.type ?? '';
// @ts-expect-error 5 is not a heading level: the shipped types are the schema's, not loose ones
export const wrong: Block = { type: 'heading', level: 5, text: 'x' };
`;

describe('the packed @folio/client installed on its own', { timeout: 180_000 }, () => {
  const tmp = mkdtempSync(join(tmpdir(), 'folio-client-'));
  const staged = join(tmp, 'package');
  const app = join(tmp, 'app');

  before(() => {
    mkdirSync(staged);
    for (const file of ['package.json', 'README.md'])
      copyFileSync(join(packageDir, file), join(staged, file));
    run(
      process.execPath,
      [tsc, '-p', join(packageDir, 'tsconfig.build.json'), '--outDir', join(staged, 'dist')],
      tmp,
    );
    const packOutput = run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], staged);
    const [packed] = JSON.parse(packOutput) as { filename: string }[];
    mkdirSync(app);
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({
        name: 'app',
        private: true,
        type: 'module',
        dependencies: { '@folio/client': `file:../${packed!.filename}` },
      }),
    );
    run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'],
      app,
    );
  });

  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('ships JS and .d.ts files that reference neither @folio/schema, TypeBox nor Ajv', () => {
    const dist = join(app, 'node_modules/@folio/client/dist');
    const files = readdirSync(dist, { recursive: true, encoding: 'utf8' })
      .filter((file) => /\.(?:js|d\.ts)$/.test(file))
      .map((file) => join(dist, file));
    assert.ok(files.some((file) => file.endsWith('generated/links.js')));
    assert.ok(files.some((file) => file.endsWith('generated/schema.d.ts')));
    for (const file of files) assert.doesNotMatch(readFileSync(file, 'utf8'), FORBIDDEN, file);
  });

  it('installs standardwebhooks and none of the schema packages', () => {
    const installed = (name: string) => existsSync(join(app, 'node_modules', name, 'package.json'));
    assert.ok(installed('standardwebhooks'));
    for (const name of ['@folio/schema', '@sinclair/typebox', 'ajv']) assert.ok(!installed(name), name);
  });

  it('renders blocks, refuses unsafe links and verifies a webhook when Node imports the build', () => {
    const out = JSON.parse(run(process.execPath, ['--input-type=module', '-e', consumerScript], app)) as {
      html: string;
      hrefs: (string | null)[];
      event: string;
      handler: string;
      resolved: string;
    };
    assert.match(out.resolved, /\/node_modules\/@folio\/client\/dist\/index\.js$/);
    assert.equal(
      out.html,
      '<p><a href="https://example.com/docs">docs</a><strong> &amp; </strong>evil</p>',
      'the javascript: link shows as text, the data: image and the unknown block render nothing',
    );
    assert.deepEqual(out.hrefs, ['/blog/a', '#top', null, null, null]);
    assert.equal(out.event, 'webhook.test');
    assert.equal(out.handler, 'function');
  });

  it('type-checks a consumer against the shipped .d.ts files, without skipLibCheck', () => {
    writeFileSync(join(app, 'check.ts'), consumerTypes);
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          lib: ['es2022', 'dom'],
          module: 'nodenext',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          typeRoots: [typeRoots],
          types: ['node'],
        },
        files: ['check.ts'],
      }),
    );
    run(process.execPath, [tsc, '-p', 'tsconfig.json'], app);
  });
});
