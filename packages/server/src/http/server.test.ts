import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestApp, newArticle, type TestApp } from '../test/test-app.ts';
import { handleClientError } from './error-handler.ts';
import { createHttpServer } from './server.ts';

const hitsOf = (t: TestApp) => (t.app as unknown as { fastPathHits: () => number }).fastPathHits();

// The shape V8 gives an object follows its own properties and their order: what is compared here.
const shapeOf = (value: object) => Reflect.ownKeys(value).map(String).join(' ');

describe('responses and sockets take one shape whichever path answers', () => {
  let t: TestApp;
  let base: string;
  let projectId: string;
  let key: string;
  const seen: Array<{ url: string; status: number; response: string; socket: string }> = [];

  before(async () => {
    t = await createTestApp('sqlite', { clockStart: Date.now() });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    projectId = (await t.createProject({ websiteUrl: 'https://www.example.com' })).id;
    key = await t.createKey(projectId);
    await t.putArticle(projectId, 'a1', newArticle({ slug: 's1', published: true }));
    // Taken once each answer is written, after what either path adds to either object.
    t.app.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      const socket = request.socket;
      response.once('finish', () => {
        seen.push({
          url: request.url!,
          status: response.statusCode,
          response: shapeOf(response),
          socket: shapeOf(socket),
        });
      });
    });
  });
  after(() => t.close());

  // A fresh connection for each, so each socket has served one path only.
  const get = (path: string, authorization = `Bearer ${key}`) =>
    fetch(`${base}${path}`, { headers: { authorization, connection: 'close' } });

  test('a fast answer, a framework 404 and a refused key leave the same properties in one order', async () => {
    const slug = `/api/v1/projects/${projectId}/content/by-slug/s1`;
    // The first use of a key records its use: a write, so the next request takes the full path too.
    for (let i = 0; i < 3; i++) assert.equal((await get(slug)).status, 200);
    const hits = hitsOf(t);
    assert.equal((await get(slug)).status, 200);
    assert.equal(hitsOf(t), hits + 1, 'answered on the fast path');
    // The framework's 404 sets the status before the head is written; a wrong key's 401 reads the
    // client's address for the failed-authentication budget.
    assert.equal((await get('/no-such-route')).status, 404);
    assert.equal((await get(slug, 'Bearer folio_ck_wrong')).status, 401);
    await new Promise((resolve) => setImmediate(resolve));

    const fast = seen.at(-3)!;
    assert.equal(fast.url, slug);
    for (const other of seen.slice(-2)) {
      assert.equal(other.response, fast.response, `response of ${other.status}`);
      assert.equal(other.socket, fast.socket, `socket of ${other.status}`);
    }
    assert.deepEqual(
      seen.slice(-2).map((s) => s.status),
      [404, 401],
    );
  });
});

describe('a request without a body', () => {
  test('arrives with its body already ended; one with a body still streams it', async () => {
    const arrived: Array<{ method: string; ended: boolean; body: string }> = [];
    const server = createHttpServer(async (request, response) => {
      const ended = request.readableEnded;
      let body = '';
      if (!ended) for await (const chunk of request) body += chunk;
      arrived.push({ method: request.method!, ended, body });
      response.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      assert.equal(await (await fetch(`${base}/read`)).text(), 'ok');
      assert.equal(await (await fetch(`${base}/write`, { method: 'POST', body: 'a body' })).text(), 'ok');
      assert.deepEqual(arrived, [
        // No stream events to schedule and emit for a read: the cost every cached answer skips.
        { method: 'GET', ended: true, body: '' },
        { method: 'POST', ended: false, body: 'a body' },
      ]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

test('a request whose body stalls is answered 408 in the contract shape once its time is up', async () => {
  const server = createHttpServer(
    (request, response) => {
      request.resume();
      request.on('end', () => response.end('read'));
    },
    { requestMs: 300, checkEveryMs: 50 },
  );
  // As the app installs it (Fastify's clientErrorHandler).
  server.on('clientError', handleClientError);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    // Announces ten bytes and sends three.
    socket.write(
      'POST /x HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{"a',
    );
    // Far past the bound: a server that never answers fails the test rather than hanging it.
    socket.setTimeout(5_000, () => socket.destroy());
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    await new Promise((resolve) => socket.on('close', resolve));
    assert.match(answer, /^HTTP\/1\.1 408 /);
    assert.match(answer, /"code":"request_timeout"/);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe('requests that arrive on a busy connection while the server closes', () => {
  for (const which of ['framework', 'fast path'] as const) {
    test(`are answered in full, by the ${which}, with Connection: close`, async () => {
      const t = await createTestApp('sqlite', { clockStart: Date.now() });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const projectId = (await t.createProject({ websiteUrl: 'https://www.example.com' })).id;
      const key = await t.createKey(projectId);
      await t.putArticle(projectId, 'a1', newArticle({ slug: 's1', published: true }));
      const bySlug = `/api/v1/projects/${projectId}/content/by-slug/s1`;
      // The framework's own route; the by-slug answer, once cached, is the fast path's.
      // (The first read caches the answer, the second confirms the key since the last write.)
      for (let warm = which === 'fast path' ? 2 : 0; warm > 0; warm--) {
        await (await fetch(`http://127.0.0.1:${portOf(t)}${bySlug}`, auth(key))).text();
      }
      const hits = hitsOf(t);
      const url = which === 'fast path' ? bySlug : `/api/v1/projects/${projectId}/content?limit=1`;

      const answer = await requestWhileClosing(
        t,
        `GET ${url} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`,
      );

      const heads = [...answer.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((match) => match[1]);
      assert.equal(heads.length, 2, answer);
      assert.equal(heads[1], '200', answer);
      const second = answer.slice(answer.lastIndexOf('HTTP/1.1 '));
      assert.match(second, /^connection: close\r$/im, 'the client is told to reconnect elsewhere');
      assert.match(second, /"success":true/);
      assert.equal(hitsOf(t) - hits, which === 'fast path' ? 1 : 0);
    });
  }
});

test('/readyz answers 503 while the server closes, so a balancer stops sending before it is gone', async () => {
  const t = await createTestApp('sqlite', { clockStart: Date.now() });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  assert.equal((await fetch(`http://127.0.0.1:${portOf(t)}/readyz`)).status, 200);
  const answer = await requestWhileClosing(t, 'GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n');
  const second = answer.slice(answer.lastIndexOf('HTTP/1.1 '));
  assert.match(second, /^HTTP\/1\.1 503 /, answer);
  assert.match(second, /"code":"unavailable"/);
  assert.match(second, /shutting down/i);
  assert.match(second, /^retry-after: \d+\r$/im);
});

/**
 * Sends `request` on a connection kept busy while the server closes: a request whose body is
 * still on its way, with `request` pipelined behind it once the close has begun. Answers all
 * the connection received.
 */
async function requestWhileClosing(t: TestApp, request: string): Promise<string> {
  const socket = connect(portOf(t), '127.0.0.1');
  let answer = '';
  socket.on('data', (chunk) => {
    answer += chunk;
  });
  socket.setTimeout(10_000, () => socket.destroy());
  // A refused sign-in writes nothing, so a cached answer stays current for the fast path.
  const body = 'token=not-the-admin-token';
  socket.write(
    'POST /dashboard/sign-in HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n' +
      `Content-Length: ${body.length}\r\n\r\n${body.slice(0, 3)}`,
  );
  await new Promise((resolve) => setTimeout(resolve, 100));
  const closed = t.close();
  await new Promise((resolve) => setTimeout(resolve, 100));
  socket.write(`${body.slice(3)}${request}`);
  await new Promise((resolve) => socket.on('close', resolve));
  await closed;
  return answer;
}

const portOf = (t: TestApp) => (t.app.server.address() as AddressInfo).port;
const auth = (key: string) => ({ headers: { authorization: `Bearer ${key}` } });

test('draining, a request on a connection that was idle at the close is answered, then ends it', async () => {
  const answers: Record<string, string> = {};
  for (const drainOnClose of [false, true]) {
    const server = createHttpServer((_, response) => response.end('ok'), undefined, { drainOnClose });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    socket.on('error', () => {});
    socket.setTimeout(10_000, () => socket.destroy());
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    const request = 'GET /x HTTP/1.1\r\nHost: x\r\n\r\n';
    socket.write(request);
    while (!answer.endsWith('ok')) await new Promise((resolve) => setTimeout(resolve, 10));
    // Idle now, kept alive; then the close, and the client's next request a moment later.
    const closed = new Promise((resolve) => server.close(resolve));
    await new Promise((resolve) => setTimeout(resolve, 100));
    if (!socket.destroyed) socket.write(request);
    await new Promise((resolve) => (socket.closed ? resolve(undefined) : socket.on('close', resolve)));
    await closed;
    answers[String(drainOnClose)] = answer;
  }
  // Node's own close cuts the idle connection: the next request meets a closed socket.
  assert.equal(answers.false!.match(/HTTP\/1\.1 200/g)?.length, 1, answers.false);
  assert.equal(answers.true!.match(/HTTP\/1\.1 200/g)?.length, 2, answers.true);
  assert.match(answers.true!.slice(answers.true!.lastIndexOf('HTTP/1.1')), /^Connection: close\r$/im);
});
