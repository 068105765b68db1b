import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import net from 'node:net';
import { after, describe, test } from 'node:test';
import type { FastifyReply } from 'fastify';
import { DIALECTS } from '../test/databases.ts';
import {
  ADMIN_TOKEN,
  captureLog,
  createTestApp,
  LEVELS,
  type LogLine,
  newArticle,
  type TestApp,
} from '../test/test-app.ts';
import { createMetrics } from './metrics.ts';
import { createRateLimits } from './rate-limits.ts';
import { createRequestAccounting } from './request-accounting.ts';
import { createRequestIds, loggedPath } from './request-log.ts';

const opened: TestApp[] = [];
after(async () => {
  for (const t of opened.splice(0)) await t.close();
});

async function loggedApp(
  dialect: (typeof DIALECTS)[number],
  level: 'debug' | 'info' = 'info',
  trustProxy = false,
): Promise<TestApp & { lines: LogLine[] }> {
  const { logger, lines } = captureLog(level);
  const t = await createTestApp(dialect, { logger, trustProxy });
  opened.push(t);
  return Object.assign(t, { lines });
}

const answers = (lines: LogLine[]) => lines.filter((line) => 'status' in line && 'route' in line);

/** Sends raw bytes and resolves once the server closed the connection. */
function exchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
    socket.write(bytes, 'latin1');
    setTimeout(() => socket.end(), 2_000).unref();
  });
}

async function portOf(t: TestApp): Promise<number> {
  await t.fetch('/healthz').then((answer) => answer.arrayBuffer());
  return (t.app.server.address() as net.AddressInfo).port;
}

for (const dialect of DIALECTS) {
  describe(`request log lines (${dialect})`, () => {
    test('one line per answer, with method, route, status, duration, id and the path', async () => {
      const t = await loggedApp(dialect);
      const project = await t.createProject();
      const key = await t.createKey(project.id);
      t.lines.length = 0;
      const read = await t.fetch(`/api/v1/projects/${project.id}/content/by-slug/nothing?limit=3`, {
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(read.status, 404);
      const lines = answers(t.lines);
      assert.equal(lines.length, 1, JSON.stringify(t.lines));
      assert.ok(!t.lines.some((line) => line.msg === 'incoming request'));
      const [line] = lines;
      assert.equal(line!.level, LEVELS.info);
      assert.equal(line!.msg, 'request answered');
      assert.equal(line!.method, 'GET');
      assert.equal(line!.route, '/api/v1/projects/:projectId/content/by-slug/:slug');
      assert.equal(line!.path, `/api/v1/projects/${project.id}/content/by-slug/nothing`);
      assert.equal(line!.status, 404);
      assert.equal(typeof line!.ms, 'number');
      assert.equal(line!.reqId, read.headers.get('x-request-id'));
      assert.match(String(line!.reqId), /^[\w-]{8}-[0-9a-z]+$/);
    });

    test('an unmatched long path costs a bounded line, without its query or a credential', async () => {
      const t = await loggedApp(dialect);
      const token = 'folio_pt_c2VjcmV0LXByZXZpZXctdG9rZW4';
      const long = `/${token}/${'x'.repeat(8_000)}?token=${token}&key=folio_ck_abc`;
      const answer = await t.fetch(long);
      assert.equal(answer.status, 404);
      const [line] = answers(t.lines);
      assert.equal(line!.route, 'unmatched');
      const path = String(line!.path);
      assert.ok(path.length <= 201, `${path.length} characters`);
      assert.ok(!JSON.stringify(t.lines).includes('c2VjcmV0'), 'the token is not in the log');
      assert.ok(path.startsWith('/folio_pt_(redacted)/xxx'), path);
      assert.ok(!path.includes('?'));
      assert.equal(loggedPath('/a/folio%5Fck%5Fsecret/b'), '/a/folio_ck_(redacted)/b');
      // Any letter of it escaped, or all of them, a broken escape elsewhere in the path.
      assert.equal(loggedPath('/a/%66olio_ck_secret/b/%zz'), '/a/folio_ck_(redacted)/b/%zz');
      const escaped = [...'folio_pt_secret'].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');
      assert.equal(loggedPath(`/a/${escaped}`), '/a/folio_pt_(redacted)');
      assert.equal(loggedPath('/a/caf%C3%A9'), '/a/caf%C3%A9', 'a path without a key is logged as sent');
    });

    test('a 5xx is one line, at error, with the error', async () => {
      const t = await loggedApp(dialect);
      t.app.get('/boom', async () => {
        throw new Error('a bug');
      });
      const answer = await t.app.inject({ method: 'GET', url: '/boom?x=1' });
      assert.equal(answer.statusCode, 500);
      assert.equal(t.lines.length, 1, JSON.stringify(t.lines));
      const [line] = t.lines;
      assert.equal(line!.level, LEVELS.error);
      assert.equal(line!.msg, 'request failed');
      assert.equal(line!.route, '/boom');
      assert.equal(line!.path, '/boom');
      assert.equal(line!.status, 500);
      assert.match(String((line!.err as { stack: string }).stack), /a bug/);
      assert.equal(line!.reqId, answer.headers['x-request-id']);
    });

    test('a path the router refuses is answered with its id, logged and counted', async () => {
      const t = await loggedApp(dialect);
      const answer = await t.app.inject({ method: 'GET', url: '/public/v1/%E0%A4%A?q=1' });
      assert.equal(answer.statusCode, 400);
      const [line] = answers(t.lines);
      assert.equal(line!.status, 400);
      assert.equal(line!.route, 'unmatched');
      assert.equal(line!.path, '/public/v1/%E0%A4%A');
      assert.equal(line!.reqId, answer.headers['x-request-id']);
      const metrics = await t.admin('GET', '/metrics');
      assert.match(
        metrics.body,
        /folio_http_requests_total\{route="unmatched",method="GET",status="400"\} 1/,
      );
    });

    test('a reader that leaves before its answer is complete is one line and one count, as 499', async () => {
      const { logger, lines } = captureLog('info');
      const t = await createTestApp(dialect, { logger, answerSlots: { slots: 1, patienceMs: 60_000 } });
      opened.push(t);
      const project = await t.createProject();
      const key = await t.createKey(project.id);
      const port = await portOf(t);
      // The only turn is taken, so the request waits in line until its reader leaves.
      const raw = Object.assign(new EventEmitter(), { closed: false });
      await t.app.answerSlots.hold({ raw } as unknown as FastifyReply);
      lines.length = 0;
      const path = `/api/v1/projects/${project.id}/content/by-slug/gone`;
      const socket = net.connect(port, '127.0.0.1');
      socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`);
      const waiting = async (count: number) => {
        for (let i = 0; i < 200 && t.app.answerSlots.use().waiting !== count; i++)
          await new Promise((resolve) => setTimeout(resolve, 10));
        assert.equal(t.app.answerSlots.use().waiting, count);
      };
      await waiting(1);
      socket.destroy();
      await waiting(0);
      raw.closed = true;
      raw.emit('close');
      await new Promise((resolve) => setTimeout(resolve, 50));
      const told = answers(lines);
      assert.equal(told.length, 1, JSON.stringify(lines));
      assert.equal(told[0]!.msg, 'reader left before the answer was complete');
      assert.equal(told[0]!.status, 499);
      assert.equal(told[0]!.route, '/api/v1/projects/:projectId/content/by-slug/:slug');
      assert.equal(told[0]!.path, path);
      assert.equal(told[0]!.sent, null);
      const metrics = await t.admin('GET', '/metrics');
      assert.match(
        metrics.body,
        /folio_http_requests_total\{route="\/api\/v1\/projects\/:projectId\/content\/by-slug\/:slug",method="GET",status="499"\} 1\n/,
      );
    });

    test('a fast answer is counted but not logged at info; at debug it has a line and an id', async () => {
      for (const level of ['info', 'debug'] as const) {
        const t = await loggedApp(dialect, level);
        const project = await t.createProject();
        const key = await t.createKey(project.id);
        await t.putArticle(project.id, 'a1', newArticle({ slug: 'hello', published: true }));
        const path = `/api/v1/projects/${project.id}/content/by-slug/hello`;
        const read = () =>
          t.fetch(path, { headers: { authorization: `Bearer ${key}`, 'accept-encoding': 'identity' } });
        // Until the fast path has the answer ready (a first read checks the key, and SQLite's
        // change token may move once after it).
        for (let i = 0; i < 5 && t.app.fastPathHits() === 0; i++) await (await read()).arrayBuffer();
        const hits = t.app.fastPathHits();
        t.lines.length = 0;
        const fast = await read();
        assert.equal(fast.status, 200);
        await fast.arrayBuffer();
        assert.equal(t.app.fastPathHits(), hits + 1, 'answered on the fast path');
        const lines = answers(t.lines);
        if (level === 'info') {
          assert.deepEqual(lines, []);
          assert.equal(fast.headers.get('x-request-id'), null);
        } else {
          assert.equal(lines.length, 1);
          assert.equal(lines[0]!.level, LEVELS.debug);
          assert.equal(lines[0]!.fast, true);
          assert.equal(lines[0]!.route, '/api/v1/projects/:projectId/content/by-slug/:slug');
          assert.equal(lines[0]!.reqId, fast.headers.get('x-request-id'));
        }
      }
    });
  });
}

describe('request ids', () => {
  test('unique across processes and restarts, and echoed', async () => {
    const first = createRequestIds(false);
    const second = createRequestIds(false);
    const request = { headers: {} } as Parameters<typeof first>[0];
    const ids = new Set([first(request), first(request), second(request), second(request)]);
    assert.equal(ids.size, 4);
  });

  test('a trusted proxy’s id is reused when it is short and printable; nobody else’s is', async () => {
    const trusted = await loggedApp('sqlite', 'info', true);
    const untrusted = await loggedApp('sqlite', 'info', false);
    const ask = (t: TestApp, id: string) =>
      t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': id } });
    assert.equal((await ask(trusted, 'lb-7f3a.42')).headers['x-request-id'], 'lb-7f3a.42');
    assert.notEqual((await ask(untrusted, 'lb-7f3a.42')).headers['x-request-id'], 'lb-7f3a.42');
    assert.notEqual((await ask(trusted, 'a'.repeat(65))).headers['x-request-id'], 'a'.repeat(65));
    assert.notEqual((await ask(trusted, 'has space')).headers['x-request-id'], 'has space');
    assert.equal(trusted.lines.at(-1)!.reqId !== 'has space', true);
  });
});

describe('requests refused before routing', () => {
  test('counted under route="(parser)" and logged once for a flood', async () => {
    const t = await loggedApp('sqlite');
    const port = await portOf(t);
    t.lines.length = 0;
    const bad = [
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      'GET /a\u0001b HTTP/1.1\r\nHost: x\r\n\r\n',
      'NOT HTTP AT ALL\r\n\r\n',
      'GET /healthz HTTP/1.1\r\n\r\n',
    ];
    for (let i = 0; i < 3; i++) for (const bytes of bad) await exchange(port, bytes);
    const metrics = (
      await t.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      })
    ).body;
    assert.match(metrics, /folio_http_requests_total\{route="\(parser\)",method="GET",status="431"\} 3/);
    assert.match(metrics, /folio_http_requests_total\{route="\(parser\)",method="GET",status="400"\} 6/);
    assert.match(metrics, /folio_http_requests_total\{route="\(parser\)",method="other",status="400"\} 3/);
    const warned = t.lines.filter((line) => line.level === LEVELS.warn);
    assert.equal(warned.length, 1, JSON.stringify(t.lines));
    assert.equal(warned[0]!.refused, 1);
    assert.equal(answers(t.lines).filter((line) => line.route === '(parser)').length, 0);
  });

  test('those that follow within the period are told together when it ends', async () => {
    const { logger, lines } = captureLog();
    const limits = await createRateLimits({
      perCredential: undefined,
      authFailures: { points: 5, seconds: 60 },
    });
    const accounting = createRequestAccounting({
      metrics: createMetrics(),
      limits,
      trustProxy: false,
      log: logger,
      refusalsReportEveryMs: 50,
    });
    for (let i = 0; i < 5; i++) accounting.refusedBeforeRouting(i < 2 ? 431 : 400, 'GET');
    assert.equal(lines.length, 1);
    await new Promise((resolve) => setTimeout(resolve, 120));
    assert.equal(lines.length, 2);
    assert.equal(lines[1]!.refused, 4);
    assert.deepEqual(lines[1]!.statuses, { 400: 3, 431: 1 });
    // Quiet since: no more lines, and the next refusal is told at once.
    await new Promise((resolve) => setTimeout(resolve, 120));
    assert.equal(lines.length, 2);
    accounting.refusedBeforeRouting(408, undefined);
    assert.equal(lines.length, 3);
  });
});

describe('failed authentications', () => {
  test('a lockout is one warn line with the address and how long, not one per refusal', async () => {
    const t = await loggedApp('sqlite');
    for (let i = 0; i < 35; i++) {
      await t.app.inject({
        method: 'GET',
        url: '/admin/v1/projects',
        headers: { authorization: 'Bearer wrong' },
      });
    }
    const locked = t.lines.filter((line) => line.msg.includes('locked out'));
    assert.equal(locked.length, 1, JSON.stringify(locked));
    assert.equal(locked[0]!.level, LEVELS.warn);
    assert.equal(locked[0]!.address, '127.0.0.1');
    assert.ok(Number(locked[0]!.seconds) > 0 && Number(locked[0]!.seconds) <= 60);
    const refused = answers(t.lines).filter((line) => line.status === 429);
    assert.equal(refused.length, 5);
    assert.ok(refused.every((line) => line.level === LEVELS.info));
  });
});
