import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import {
  freePort,
  requestJson,
  type ServerProcess,
  startServer,
  stop,
} from '../../../packages/server/src/test/server-process.ts';
import { PAGE_SIZE } from './lib/listing.ts';

/*
 * The example site built twice by a real `astro build` against a real Folio process: the second
 * build, after a publish, a rename and a delete, must show exactly the new state while asking
 * Folio only for the changes since the first. A counting proxy in front of Folio sees every
 * request the builds make.
 */

const SITE_DIR = fileURLToPath(new URL('..', import.meta.url));
const ORIGIN = 'https://blog.example.com';
const ADMIN = `astro-site-admin-${'x'.repeat(16)}`;

/** Astro's command line, or undefined when it is not installed. */
function astroCli(): string | undefined {
  try {
    const manifest = createRequire(join(SITE_DIR, 'package.json')).resolve('astro/package.json');
    return join(dirname(manifest), 'bin', 'astro.mjs');
  } catch {
    return undefined;
  }
}

const ASTRO = astroCli();
// In CI Astro must be there: a failed install fails the test rather than skipping it.
const skip = ASTRO || process.env.CI === 'true' ? false : 'astro is not installed (run npm install)';

/** An HTTP proxy to Folio on `port` that records each request's path and query. */
async function countingProxy(port: number): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server = http.createServer((request, response) => {
    seen.push(request.url ?? '');
    const upstream = http.request(
      { host: '127.0.0.1', port, method: request.method, path: request.url, headers: request.headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface BuildResult {
  output: string;
  ms: number;
}

/** `astro build` of the example site, as its own Node process; rejects on a non-zero exit. */
async function astroBuild(env: Record<string, string>): Promise<BuildResult> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(FOLIO_|SITE_ORIGIN$|ASTRO_|NODE_TEST_CONTEXT$)/.test(name),
    ),
  );
  const started = Date.now();
  const child = spawn(process.execPath, [ASTRO!, 'build', '--outDir', env.OUT_DIR!], {
    cwd: SITE_DIR,
    // No telemetry: nothing may leave the machine.
    // Plain text to match: CI=true would otherwise colour the log.
    env: { ...inherited, ...env, ASTRO_TELEMETRY_DISABLED: '1', NO_COLOR: '1', FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 0, `astro build failed:\n${output}`);
  // Whatever still colours it, the assertions read the text.
  return { output: stripVTControlCharacters(output), ms: Date.now() - started };
}

const paragraph = (text: string) => ({ type: 'paragraph', content: [{ text }] });

describe('the Astro example site, built twice against a live Folio', { skip }, () => {
  let dir: string;
  let folio: ServerProcess | undefined;
  let port: number;
  let proxy: Awaited<ReturnType<typeof countingProxy>>;
  let projectId: string;
  let env: Record<string, string>;

  const admin = async (method: string, path: string, body?: unknown) => {
    const answer = await requestJson(port, method, `/admin/v1/projects/${projectId}${path}`, ADMIN, body);
    assert.ok(
      answer.status >= 200 && answer.status < 300,
      `${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}\n${folio?.output()}`,
    );
    return answer;
  };
  const publish = (id: string, slug: string, title: string) =>
    admin('PUT', `/articles/${id}`, {
      slug,
      title,
      published: true,
      blocks: [paragraph(`The body of ${title}.`)],
    });
  const page = (path: string) => readFileSync(join(env.OUT_DIR!, path, 'index.html'), 'utf8');
  const exists = (path: string) => existsSync(join(env.OUT_DIR!, path, 'index.html'));
  const indexLinks = () => {
    const links: string[] = [];
    for (let n = 1; exists(n === 1 ? '' : `page/${n}`); n++) {
      for (const [, href] of page(n === 1 ? '' : `page/${n}`).matchAll(/<li><a href="([^"]+)"/g))
        links.push(href!);
    }
    return links.sort();
  };
  const sitemapUrls = () =>
    [...readFileSync(join(env.OUT_DIR!, 'sitemap.xml'), 'utf8').matchAll(/<loc>([^<]+)<\/loc>/g)]
      .map(([, loc]) => loc!)
      .sort();

  before(async () => {
    if (!ASTRO) assert.fail('astro is not installed: npm install must install the example site');
    dir = mkdtempSync(join(tmpdir(), 'folio-astro-site-'));
    port = await freePort();
    folio = await startServer({
      FOLIO_ADMIN_TOKEN: ADMIN,
      FOLIO_DEMO: 'false',
      FOLIO_DATA_DIR: join(dir, 'data'),
      PORT: String(port),
    });
    proxy = await countingProxy(port);
    const project = await requestJson(port, 'POST', '/admin/v1/projects', ADMIN, {
      name: 'Astro blog',
      websiteUrl: ORIGIN,
      articlesPath: '/blog',
    });
    projectId = (project.body!.data as { id: string }).id;
    const key = (await admin('POST', '/keys', { name: 'astro build' })).body!.data as { key: string };
    env = {
      FOLIO_URL: proxy.url,
      FOLIO_PROJECT_ID: projectId,
      FOLIO_CONTENT_KEY: key.key,
      SITE_ORIGIN: ORIGIN,
      ASTRO_CACHE_DIR: join(dir, 'cache'),
      OUT_DIR: join(dir, 'dist'),
    };
  });

  after(async () => {
    await proxy?.close();
    if (folio) await stop(folio);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the first build reads the whole set once; the second only the changes, and shows them', async (t) => {
    for (let n = 1; n <= PAGE_SIZE; n++) await publish(`a${n}`, `post-${n}`, `Post ${n}`);
    await publish('hostile', 'hostile', 'Tom & Jerry <script>alert(1)</script>');
    await publish('cafe', 'café', 'Café');
    const first = await astroBuild(env);

    assert.deepEqual(proxy.seen, [`/api/v1/projects/${projectId}/content/changes`]);
    assert.match(first.output, /\[@folio\/astro\] 7 updated, 0 removed \(full sync: first sync\)/);
    const post = page('blog/post-1');
    assert.match(post, /<title>Post 1<\/title>/);
    assert.match(post, new RegExp(`<link rel="canonical" href="${ORIGIN}/blog/post-1">`));
    assert.match(post, /<h1>Post 1<\/h1>/);
    assert.match(post, /<p>The body of Post 1\.<\/p>/);
    const hostile = page('blog/hostile');
    assert.match(hostile, /<title>Tom &amp; Jerry &lt;script&gt;alert\(1\)&lt;\/script&gt;<\/title>/);
    assert.equal(hostile.match(/<script/g)?.length, 1, 'only the ld+json script');
    // On disk under its decoded slug, linked and listed under the percent-encoded one.
    assert.match(page('blog/café'), new RegExp(`<link rel="canonical" href="${ORIGIN}/blog/caf%C3%A9">`));
    const all = ['caf%C3%A9', 'hostile', ...Array.from({ length: PAGE_SIZE }, (_, i) => `post-${i + 1}`)];
    assert.deepEqual(indexLinks(), all.map((slug) => `/blog/${slug}`).sort());
    assert.ok(exists('page/2'), 'seven articles make two index pages');
    assert.deepEqual(sitemapUrls(), all.map((slug) => `${ORIGIN}/blog/${slug}`).sort());
    // What a static host sends for an address with no page: the site's own, never indexed.
    const notFound = readFileSync(join(env.OUT_DIR!, '404.html'), 'utf8');
    assert.match(notFound, /<title>Not found<\/title>/);
    assert.match(notFound, /<meta name="robots" content="noindex">/);
    assert.doesNotMatch(notFound, /rel="canonical"/);

    await publish('late', 'late-arrival', 'Late arrival');
    // Folio takes this slug; Astro reads the backslash as a path separator, which failed the
    // whole build (and every deploy after it) until the article was deleted.
    await publish('slash', 'back\\slash', 'Back slash');
    await publish('a2', 'post-2-renamed', 'Post 2');
    await admin('DELETE', '/articles/a3');
    proxy.seen.length = 0;
    const second = await astroBuild(env);

    assert.equal(proxy.seen.length, 1, `one request: ${proxy.seen.join(', ')}`);
    assert.match(proxy.seen[0]!, new RegExp(`^/api/v1/projects/${projectId}/content/changes\\?since=[^&]+$`));
    assert.match(second.output, /\[@folio\/astro\] 3 updated, 1 removed\n/);
    assert.match(
      second.output,
      /\[folio\] article slash \(\/back\\slash\) has no page: its slug holds a backslash/,
    );
    assert.match(page('blog/late-arrival'), /<h1>Late arrival<\/h1>/);
    assert.match(
      page('blog/post-2-renamed'),
      new RegExp(`<link rel="canonical" href="${ORIGIN}/blog/post-2-renamed">`),
    );
    assert.ok(!exists('blog/post-2'), 'the old slug is gone');
    assert.ok(!exists('blog/post-3'), 'the deleted article is gone');
    assert.match(page('blog/post-1'), /<h1>Post 1<\/h1>/, 'unchanged articles are still built');
    const now = ['caf%C3%A9', 'hostile', 'late-arrival', 'post-1', 'post-2-renamed', 'post-4', 'post-5'];
    assert.deepEqual(indexLinks(), now.map((slug) => `/blog/${slug}`).sort());
    assert.deepEqual(sitemapUrls(), now.map((slug) => `${ORIGIN}/blog/${slug}`).sort());
    t.diagnostic(`astro build: first ${first.ms} ms, second ${second.ms} ms`);
  });
});
