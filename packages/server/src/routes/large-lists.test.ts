import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, test } from 'node:test';
import { createTestDatabase, DIALECTS, databaseEnv } from '../test/databases.ts';
import {
  freePort,
  type JsonAnswer,
  requestJson,
  type ServerProcess,
  startServer,
  stop,
} from '../test/server-process.ts';

const ADMIN = 'large-lists-admin-token';
const ARTICLES = 40;
// The heap a server gets here: far below the server's own bound (`bin/launch.js`), and far below
// what a page of these articles takes when read and written whole (a page of the management
// list, parsed, took gigabytes).
const SMALL_HEAP = '--max-old-space-size=96';

/**
 * An article near the 1 MiB body limit made of the smallest objects the block schema takes: as
 * JSON text it is 1 MiB, as objects many times that.
 */
function largeArticle(i: number, title: string) {
  const paragraph = { type: 'paragraph', content: Array.from({ length: 100 }, () => ({ text: 'ab' })) };
  return { slug: `large-${i}`, title, blocks: Array.from({ length: 700 }, () => paragraph) };
}

/**
 * A request on a connection of its own. Parsing an answer of 80 MB blocks this process for
 * seconds on a loaded machine, long enough for the server to close a kept-alive connection as
 * idle just as the next request reuses it ("other side closed").
 */
function call(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { port, host: '127.0.0.1', method, path, headers, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode!,
            headers: response.headers,
            text: Buffer.concat(chunks).toString(),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** `call` with a bearer token and a JSON body, its answer parsed. */
async function callJson(port: number, method: string, path: string, token: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const text = body === undefined ? undefined : JSON.stringify(body);
  const answer = await call(port, method, path, headers, text);
  return {
    status: answer.status,
    body: answer.text ? (JSON.parse(answer.text) as JsonAnswer['body']) : undefined,
  };
}

// How long a request waits for an answer to be made (`http/answer-slots.ts`).
const PATIENCE_MS = 10_000;

/**
 * A GET whose answer is left unread for `waitMs`, then read to its end: whether it was a whole
 * JSON answer (only its ends are kept, the answers are tens of megabytes), its first bytes and
 * its `Retry-After`.
 */
function readLater(port: number, path: string, token: string, waitMs: number) {
  return new Promise<{ status: number; whole: boolean; head: string; retryAfter: string | undefined }>(
    (resolve, reject) => {
      const headers = { authorization: `Bearer ${token}` };
      const request = http.get({ port, host: '127.0.0.1', path, headers, agent: false }, (response) => {
        response.pause();
        setTimeout(() => response.resume(), waitMs);
        let head = '';
        let tail = '';
        response.on('data', (chunk: Buffer) => {
          if (head.length < 64) head += chunk.subarray(0, 64).toString('latin1');
          tail = (tail + chunk.subarray(-8).toString('latin1')).slice(-8);
        });
        response.on('end', () =>
          resolve({
            status: response.statusCode!,
            whole: response.complete && head.startsWith('{"success":true,') && tail.endsWith('}'),
            head,
            retryAfter: response.headers['retry-after'],
          }),
        );
        response.on('error', reject);
      });
      request.on('error', reject);
    },
  );
}

/** What the test reads of a listed article, in any of the lists. */
interface Listed {
  title: string;
  blocks: unknown[];
  draft?: { blocks: unknown[] };
}

for (const dialect of DIALECTS) {
  describe(`lists of large articles [${dialect}]`, () => {
    test('a small heap serves every list of 1 MiB articles, to many readers at once, and publishes and rewrites them all', async () => {
      const database = await createTestDatabase(dialect);
      const env = { FOLIO_ADMIN_TOKEN: ADMIN, FOLIO_DEMO: 'false', ...databaseEnv(database) };
      let server: ServerProcess | undefined;
      try {
        // Written by a server with the usual heap: what is tested is reading them back.
        let port = await freePort();
        server = await startServer({ ...env, PORT: String(port) });
        const created = await requestJson(port, 'POST', '/admin/v1/projects', ADMIN, { name: 'Large' });
        const projectId = (created.body!.data as { id: string }).id;
        const keyOf = async (kind: string) =>
          (
            (
              await requestJson(port, 'POST', `/admin/v1/projects/${projectId}/keys`, ADMIN, {
                name: kind,
                kind,
              })
            ).body!.data as { key: string }
          ).key;
        const contentKey = await keyOf('content');
        const previewKey = await keyOf('preview');
        const articles = `/admin/v1/projects/${projectId}/articles`;
        for (let i = 0; i < ARTICLES; i++) {
          const put = await requestJson(port, 'PUT', `${articles}/a${i}`, ADMIN, {
            ...largeArticle(i, `Article ${i}`),
            published: true,
          });
          assert.equal(put.status, 201, JSON.stringify(put.body));
          const { slug, title, blocks } = largeArticle(i, `Draft ${i}`);
          const draft = await requestJson(port, 'PUT', `${articles}/a${i}/draft`, ADMIN, {
            slug,
            title,
            blocks,
          });
          assert.equal(draft.status, 200, JSON.stringify(draft.body));
        }
        assert.equal(await stop(server), 0);

        port = await freePort();
        server = await startServer({ ...env, PORT: String(port) }, { nodeFlags: [SMALL_HEAP] });
        const content = `/api/v1/projects/${projectId}/content`;
        const page = (data: unknown) => data as Listed[];
        const changes = (data: unknown) => (data as { changes: Array<{ article: Listed }> }).changes;
        const lists: Array<[string, string, (data: unknown) => Array<Listed | { article: Listed }>]> = [
          [`${articles}?limit=100`, ADMIN, page],
          [`${content}?limit=100`, contentKey, page],
          [`${content}?limit=100`, previewKey, page],
          [`${content}/changes?limit=100`, contentKey, changes],
          [`${content}/changes?limit=100`, previewKey, changes],
        ];
        for (const [path, token, itemsOf] of lists) {
          const answer = await callJson(port, 'GET', path, token);
          assert.equal(answer.status, 200, `${path}: ${JSON.stringify(answer.body)}`);
          const items = itemsOf(answer.body!.data);
          assert.equal(items.length, ARTICLES, path);
          const first = items[0]!;
          const article = 'article' in first ? first.article : first;
          assert.equal(article.blocks.length, 700, path);
          // The management list shows the draft too; the preview perspective shows the draft.
          if (token === ADMIN) assert.equal(article.draft?.blocks.length, 700);
          if (token === previewKey) assert.match(article.title, /^Draft /, path);
        }

        // The dashboard's list of the same articles.
        const form = { 'content-type': 'application/x-www-form-urlencoded' };
        const signIn = await call(port, 'POST', '/dashboard/sign-in', form, `token=${ADMIN}`);
        const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
        const listPage = await call(port, 'GET', `/dashboard/projects/${projectId}/articles`, { cookie });
        assert.equal(listPage.status, 200);
        assert.equal(listPage.text.match(/<tr>/g)?.length, ARTICLES + 1);

        // Many readers at once, each asking for a page of its own (a `limit` each) and reading
        // none of it for a while. Each answer made holds megabytes until it is read; before
        // answers were bounded, this took the server past its heap.
        const readers = await Promise.all(
          Array.from({ length: ARTICLES }, (_, i) =>
            readLater(port, `${content}?limit=${100 - i}`, contentKey, PATIENCE_MS + 2_000),
          ),
        );
        for (const reader of readers) {
          if (reader.status === 200) assert.equal(reader.whole, true, 'a 200 that is not a whole answer');
          else {
            assert.equal(reader.status, 503);
            assert.match(reader.head, /^\{"success":false,"error":\{"code":"unavailable"/);
            assert.equal(reader.retryAfter, '1');
          }
        }
        const served = readers.filter((reader) => reader.status === 200).length;
        assert.ok(served > 0 && served < ARTICLES, `${served} of ${ARTICLES} readers were served`);
        assert.equal((await callJson(port, 'GET', `${content}?limit=7`, contentKey)).status, 200);

        // Writes that read many of them at once: drafts published on schedule, all due together,
        // then a settings change that rewrites every article's served JSON.
        const dueAt = new Date(Date.now() + 2_000).toISOString();
        for (let i = 0; i < ARTICLES; i++) {
          const scheduled = await callJson(port, 'PATCH', `${articles}/a${i}`, ADMIN, {
            publishAt: dueAt,
          });
          assert.equal(scheduled.status, 200, JSON.stringify(scheduled.body));
        }
        const drafts = async () => {
          const list = await callJson(port, 'GET', `${articles}?limit=100`, ADMIN);
          return (list.body!.data as Array<{ draft: unknown }>).filter((article) => article.draft !== null)
            .length;
        };
        const deadline = Date.now() + 60_000;
        while ((await drafts()) > 0) {
          assert.ok(Date.now() < deadline, 'the drafts were not all published on schedule');
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
        const settings = await callJson(port, 'PATCH', `/admin/v1/projects/${projectId}`, ADMIN, {
          websiteUrl: 'https://large.example',
        });
        assert.equal(settings.status, 200, JSON.stringify(settings.body));
        const bySlug = await callJson(port, 'GET', `${content}/by-slug/large-${ARTICLES - 1}`, contentKey);
        const article = bySlug.body!.data as { title: string; seo: { jsonLd: { url: string } } };
        assert.equal(article.title, `Draft ${ARTICLES - 1}`);
        assert.match(article.seo.jsonLd.url, /^https:\/\/large\.example\//);

        assert.equal(server.child.exitCode, null, server.output());
        assert.equal(await stop(server), 0, server.output());
        server = undefined;
      } catch (error) {
        // What the server said, an out-of-memory abort above all, is the failure's explanation.
        throw new Error(`${error}\nserver output:\n${server?.output() ?? ''}`, { cause: error });
      } finally {
        if (server) await stop(server);
        await database.close();
      }
    });
  });
}
