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
 * The client as a user gets it: packed by `npm run pack:client`, copied into an empty project
 * and installed from there as the README says, with nothing but its declared dependencies, then
 * imported and type-checked there.
 */

const packageDir = fileURLToPath(new URL('../', import.meta.url));
const repositoryDir = join(packageDir, '../..');
const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');
// The Node entry names Node's types, so its consumer needs @types/node; this repo's will do.
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
import { type Article, type Block, FolioError, renderBlocks } from '@folio/client';

const blocks: Block[] = [{ type: 'heading', level: 2, text: 'Hi' }];
export const html: string = renderBlocks(blocks);
export const title = (article: Article): string => article.seo.ogImage ?? article.blocks[0]?.type ?? '';
// @ts-expect-error 5 is not a heading level: the shipped types are the schema's, not loose ones
export const wrong: Block = { type: 'heading', level: 5, text: 'x' };
export const missing = (error: FolioError): boolean => error.code === 'not_found';
// @ts-expect-error a misspelt code is none the API or the client answers
export const misspelt = (error: FolioError): boolean => error.code === 'not_fund';
`;

describe('the packed @folio/client installed on its own', { timeout: 180_000 }, () => {
  const tmp = mkdtempSync(join(tmpdir(), 'folio-client-'));
  const packed = join(tmp, 'packed');
  const app = join(tmp, 'app');
  let printed = '';
  let tarball = '';

  before(() => {
    printed = run('npm', ['run', '--silent', 'pack:client', '--', packed], repositoryDir);
    const [file] = readdirSync(packed);
    assert.match(file!, /^folio-client-\d+\.\d+\.\d+\.tgz$/);
    tarball = file!;
    // A site in another repository: its own package.json, the tarball copied into it.
    mkdirSync(join(app, 'vendor'), { recursive: true });
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    copyFileSync(join(packed, tarball), join(app, 'vendor', tarball));
    run(
      'npm',
      [
        'install',
        `./vendor/${tarball}`,
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        '--loglevel=error',
      ],
      app,
    );
  });

  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('pack:client prints where the tarball is and how to install it; the site records the copy', () => {
    assert.ok(printed.includes(`Packed @folio/client into ${join(packed, tarball)}\n`), printed);
    assert.ok(printed.includes(`npm install ./vendor/${tarball}\n`), printed);
    const site = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'));
    assert.deepEqual(site.dependencies, { '@folio/client': `file:vendor/${tarball}` });
  });

  it('ships a manifest without build scripts or source paths, and no source maps', () => {
    const installed = join(app, 'node_modules/@folio/client');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    assert.equal(manifest.scripts, undefined, 'no prepare/prepack that would need the repository');
    assert.doesNotMatch(JSON.stringify(manifest.exports), /folio-source|\.\/src\//);
    assert.deepEqual(Object.keys(manifest.dependencies), ['standardwebhooks']);
    const files = readdirSync(installed, { recursive: true, encoding: 'utf8' });
    assert.deepEqual(
      files.filter((file) => file.endsWith('.map')),
      [],
    );
    assert.ok(files.includes('README.md'));
  });

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

  /** Type-checks `source` as a file of the site, strictly and without skipLibCheck. */
  function typeCheck(file: string, source: string, types: { typeRoots?: string[]; types: string[] }) {
    writeFileSync(join(app, file), source);
    const config = `tsconfig.${file}.json`;
    const compilerOptions = {
      target: 'es2022',
      lib: ['es2022', 'dom'],
      module: 'nodenext',
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      ...types,
    };
    writeFileSync(join(app, config), JSON.stringify({ compilerOptions, files: [file] }));
    run(process.execPath, [tsc, '-p', config], app);
  }

  it('type-checks a consumer against the shipped .d.ts files, without skipLibCheck', () => {
    typeCheck('check.ts', consumerTypes, { typeRoots: [typeRoots], types: ['node'] });
  });

  it('type-checks a Web-only consumer of the main entry without @types/node or skipLibCheck', () => {
    const web = `${consumerTypes}
import { createWebhookReceiver } from '@folio/client';
export const receive = createWebhookReceiver({ secret: 'whsec_x', onEvent: () => {} });
`;
    typeCheck('web.ts', web, { types: [] });
  });

  it('loads from CommonJS through require, as Node 20.19 and later allow for ES modules', () => {
    const script = `const { renderBlocks } = require('@folio/client');
      const { createWebhookHandler } = require('@folio/client/node');
      console.log(renderBlocks([{ type: 'heading', level: 2, text: 'Hi' }]), typeof createWebhookHandler);`;
    const out = run(process.execPath, ['--disable-warning=ExperimentalWarning', '-e', script], app);
    assert.equal(out.trim(), '<h2>Hi</h2> function');
  });
});
