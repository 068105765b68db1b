import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createClient } from './client.ts';
import type { FolioClient } from './client-types.ts';
import { FolioError } from './folio-error.ts';
import type { Article, ArticleStatus, PreviewArticle } from './generated/schema.ts';

/**
 * The client against a real Folio: `folio start` in a process of its own, on an empty SQLite
 * database, set up through the management API as a site team would. The client imports
 * nothing of the server, so the server is started as its users start it.
 */

const FOLIO = fileURLToPath(new URL('../../server/bin/folio.js', import.meta.url));
const ADMIN_TOKEN = `client-live-${'x'.repeat(24)}`;
const PREVIEW_URL = 'https://www.example.com/preview?slug={slug}&token={token}';

const paragraph = (text: string) => ({ type: 'paragraph', content: [{ text }] });

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts `folio start` on an empty database in `dir` and resolves with its base URL once it answers. */
async function startFolio(
  dir: string,
): Promise<{ child: ChildProcess; baseUrl: string; output: () => string }> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  // Nothing from this shell's own Folio settings (a DATABASE_URL, a rate limit) may leak in.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(FOLIO_|DATABASE_URL$|REDIS_URL$)/.test(name)),
  );
  const child = spawn(process.execPath, [FOLIO, 'start'], {
    env: {
      ...inherited,
      PORT: String(port),
      HOST: '127.0.0.1',
      FOLIO_BASE_URL: baseUrl,
      FOLIO_DATA_DIR: dir,
      FOLIO_DEMO: 'false',
      FOLIO_ADMIN_TOKEN: ADMIN_TOKEN,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    output += chunk;
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    assert.equal(child.exitCode, null, `folio start exited:\n${output}`);
    assert.ok(Date.now() < deadline, `folio start did not answer within 30 s:\n${output}`);
    const up = await fetch(`${baseUrl}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (up) return { child, baseUrl, output: () => output };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the client against a real Folio: preview keys and preview tokens', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'folio-client-live-'));
  let folio: Awaited<ReturnType<typeof startFolio>>;
  let projectId: string;
  let contentKey: string;
  let content: FolioClient<'content'>;
  let preview: FolioClient<'preview'>;

  async function admin<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${folio.baseUrl}/admin/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    assert.ok(response.ok, `${method} ${path} answered ${response.status}: ${text}`);
    return (text ? JSON.parse(text).data : undefined) as T;
  }
  const article = (id: string) => `/projects/${projectId}/articles/${id}`;
  const previewLink = (id: string) => admin<{ token: string }>('POST', `${article(id)}/preview-link`);

  before(async () => {
    folio = await startFolio(dir);
    ({ id: projectId } = await admin<{ id: string }>('POST', '/projects', {
      name: 'Client live test',
      websiteUrl: 'https://www.example.com',
      articlesPath: '/blog',
      previewUrl: PREVIEW_URL,
    }));
    const key = async (kind: 'content' | 'preview') =>
      (await admin<{ key: string }>('POST', `/projects/${projectId}/keys`, { name: kind, kind })).key;
    const settings = { baseUrl: folio.baseUrl, projectId, retries: 0 };
    contentKey = await key('content');
    content = createClient({ ...settings, contentKey });
    preview = createClient({ ...settings, previewKey: await key('preview') });

    // `live`: published, then a draft under the same slug. `renamed`: published, its draft
    // renames it. `fresh`: never published, only a draft.
    await admin('PUT', article('live'), {
      slug: 'live',
      title: 'Live, as published',
      blocks: [paragraph('The published text.')],
      published: true,
    });
    await admin('PUT', `${article('live')}/draft`, {
      slug: 'live',
      title: 'Live, as drafted',
      blocks: [paragraph('The draft text.')],
    });
    await admin('PUT', article('renamed'), {
      slug: 'old-name',
      title: 'Old name',
      blocks: [paragraph('Old.')],
      published: true,
    });
    await admin('PUT', `${article('renamed')}/draft`, {
      slug: 'new-name',
      title: 'New name',
      blocks: [paragraph('New.')],
    });
    await admin('PUT', `${article('fresh')}/draft`, {
      slug: 'fresh',
      title: 'Fresh',
      blocks: [paragraph('Not yet published.')],
    });
  });

  after(async () => {
    if (folio && folio.child.exitCode === null) {
      const exited = new Promise((resolve) => folio.child.once('exit', resolve));
      folio.child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('a content key reads only what is published, without status', async () => {
    const live: Article | null = await content.getArticle('live');
    assert.equal(live?.title, 'Live, as published');
    assert.equal('status' in live!, false);
    assert.equal(await content.getArticle('fresh'), null);
    assert.equal(await content.getArticle('new-name'), null);
    const { data } = await content.listArticles();
    assert.deepEqual(data.map((item) => item.slug).sort(), ['live', 'old-name']);
  });

  it('a preview key reads every article as its draft, with status, on every read', async () => {
    const { data } = await preview.listArticles({ limit: 100 });
    const shown = data.map((item): [string, string, ArticleStatus, string | null] => [
      item.id,
      item.title,
      item.status,
      item.publishedAt === null ? null : 'set',
    ]);
    assert.deepEqual(shown, [
      ['fresh', 'Fresh', 'unpublished', null],
      ['renamed', 'New name', 'changed', 'set'],
      ['live', 'Live, as drafted', 'changed', 'set'],
    ]);
    const all = [];
    for await (const item of preview.articles({ limit: 1 })) all.push(item.id);
    assert.deepEqual(all, ['fresh', 'renamed', 'live']);

    const renamed: PreviewArticle | null = await preview.getArticle('new-name');
    assert.equal(renamed?.status, 'changed');
    assert.equal(renamed?.seo.canonicalPath, '/blog/new-name');
    assert.equal(await preview.getArticle('old-name'), null, 'the draft renamed it');
    assert.equal((await preview.getArticle('fresh'))?.publishedAt, null);

    const { changes } = await preview.sync();
    const upserts = changes.flatMap((change) => (change.type === 'upsert' ? [change.article] : []));
    assert.deepEqual(upserts.map((item) => [item.id, item.status]).sort(), [
      ['fresh', 'unpublished'],
      ['live', 'changed'],
      ['renamed', 'changed'],
    ]);
    // The sitemap is the public one whoever asks.
    assert.deepEqual((await preview.getSitemap()).map((entry) => entry.url).sort(), [
      'https://www.example.com/blog/live',
      'https://www.example.com/blog/old-name',
    ]);
  });

  it('a preview token reads its one article in the preview perspective, under either client', async () => {
    const { token } = await previewLink('live');
    // The content key's answer for the same address first, so a cached one could be served.
    assert.equal((await content.getArticle('live'))?.title, 'Live, as published');
    for (const client of [content, preview]) {
      const drafted = await client.getArticle('live', { previewToken: token });
      assert.equal(drafted?.title, 'Live, as drafted');
      assert.equal(drafted?.status, 'changed');
      assert.deepEqual(drafted?.blocks, [paragraph('The draft text.')]);
    }
    assert.equal((await content.getArticle('live'))?.title, 'Live, as published', 'the key reads as before');

    const fresh = await previewLink('fresh');
    const unpublished = await content.getArticle('fresh', { previewToken: fresh.token });
    assert.deepEqual([unpublished?.status, unpublished?.publishedAt], ['unpublished', null]);
  });

  it('a baseUrl of a dashboard page is named as the likely cause of the sign-in page it gets', async () => {
    const lost = createClient({ baseUrl: `${folio.baseUrl}/dashboard`, projectId, contentKey, retries: 0 });
    const refused = await lost.listArticles().catch((error: unknown) => error);
    assert.ok(refused instanceof FolioError);
    assert.deepEqual([refused.status, refused.code], [200, 'invalid_response']);
    assert.ok(
      refused.message.includes(`GET ${folio.baseUrl}/dashboard/api/v1/projects/${projectId}/content `),
    );
    assert.ok(refused.message.includes(`redirected to ${folio.baseUrl}/dashboard/sign-in; text/html`));
    assert.ok(refused.message.includes(`is baseUrl "${folio.baseUrl}/dashboard" Folio's root address?`));
  });

  it('a preview token refuses any other article, and stops when its article is deleted', async () => {
    const { token } = await previewLink('renamed');
    assert.equal((await content.getArticle('new-name', { previewToken: token }))?.title, 'New name');
    const refused = await content
      .getArticle('live', { previewToken: token })
      .catch((error: unknown) => error);
    assert.ok(refused instanceof FolioError);
    assert.deepEqual([refused.status, refused.code], [401, 'unauthorized']);
    await assert.rejects(content.getArticle('new-name', { previewToken: 'folio_pt_made-up' }), {
      status: 401,
    });

    await admin('DELETE', article('renamed'));
    await assert.rejects(content.getArticle('new-name', { previewToken: token }), {
      name: 'FolioError',
      status: 401,
      code: 'unauthorized',
    });
  });
});

// Checked by `tsc --noEmit` (npm test), not at run time: the kind of key decides the types.
export async function typesFollowTheKey(content: FolioClient<'content'>, preview: FolioClient<'preview'>) {
  const live = await content.getArticle('live');
  // @ts-expect-error a content key reads published articles: no status
  void live?.status;
  const publishedAt: string | undefined = live?.publishedAt;
  // Never null: Folio answers a token 401, not 404, for any slug but its article's.
  const drafted: PreviewArticle = await preview.getArticle('live', { previewToken: 'folio_pt_x' });
  const status: ArticleStatus = (await content.getArticle('live', { previewToken: 'folio_pt_x' })).status;
  const item = (await preview.listArticles()).data[0];
  // @ts-expect-error a preview article may never have been published
  const never: string | undefined = item?.publishedAt;
  const change = (await preview.sync()).changes[0];
  const changed: ArticleStatus | undefined = change?.type === 'upsert' ? change.article.status : undefined;
  return [publishedAt, drafted, status, never, changed];
}
