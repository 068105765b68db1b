import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { createWebhookHandler, type WebhookEvent } from './node.ts';

const SECRET = `whsec_${randomBytes(24).toString('base64')}`;

function event(name: string, slug = 'hello'): string {
  return JSON.stringify({
    event: name,
    projectId: 'proj_1',
    timestamp: new Date().toISOString(),
    data: { id: 'a1', slug },
  });
}

function signed(body: string, id: string, { secret = SECRET, at = new Date() } = {}): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, body),
  };
}

describe('createWebhookHandler on a real node:http server', () => {
  const received: [WebhookEvent, string][] = [];
  let server: Server;
  let url: string;

  before(async () => {
    const handler = createWebhookHandler({
      secret: SECRET,
      onEvent: (e, id) => {
        if (e.data?.slug === 'explode') throw new Error('boom');
        received.push([e, id]);
      },
      onError: () => {},
      maxBodyBytes: 64 * 1024,
    });
    server = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/folio`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const post = (body: string, headers: Record<string, string>) =>
    fetch(url, { method: 'POST', body, headers });

  it('answers 204 with no body and calls onEvent for a signed delivery', async () => {
    const body = event('content.created');
    const res = await post(body, signed(body, 'msg_ok'));
    assert.equal(res.status, 204);
    assert.equal(await res.text(), '');
    assert.deepEqual(received.at(-1), [JSON.parse(body), 'msg_ok']);
  });

  it('answers 204 to a signed body with only event and projectId', async () => {
    const body = '{"event":"content.updated","projectId":"p"}';
    const res = await post(body, signed(body, 'msg_minimal'));
    assert.equal(res.status, 204);
    assert.deepEqual(received.at(-1), [{ event: 'content.updated', projectId: 'p' }, 'msg_minimal']);
    assert.equal((await post(body, { 'content-type': 'application/json' })).status, 401);
  });

  it('answers 401 for a tampered body, a wrong secret, no signature and a stale timestamp', async () => {
    const before = received.length;
    const body = event('content.updated');
    const cases: [string, Record<string, string>][] = [
      [body.replace('hello', 'hacked'), signed(body, 'msg_t1')],
      [body, signed(body, 'msg_t2', { secret: `whsec_${randomBytes(24).toString('base64')}` })],
      [
        body,
        {
          'content-type': 'application/json',
          'webhook-id': 'msg_t3',
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        },
      ],
      [body, { 'content-type': 'application/json' }],
      [body, signed(body, 'msg_t4', { at: new Date(Date.now() - 10 * 60_000) })],
    ];
    for (const [payload, headers] of cases) assert.equal((await post(payload, headers)).status, 401);
    assert.equal(received.length, before);
  });

  it("says why it refused, in words Folio's delivery log keeps", async () => {
    const body = event('content.updated');
    const wrong = await post(
      body,
      signed(body, 'msg_w', { secret: `whsec_${randomBytes(24).toString('base64')}` }),
    );
    assert.equal(wrong.headers.get('content-type'), 'text/plain; charset=utf-8');
    assert.match(await wrong.text(), /check the secret, and verify the raw body as received/);
    const stale = await post(body, signed(body, 'msg_s', { at: new Date(Date.now() - 10 * 60_000) }));
    assert.match(await stale.text(), /timestamp too old/i);
    assert.equal(await (await post(body, signed(body, 'msg_fine'))).text(), '', 'a 204 has no body');
  });

  it('drops a duplicate webhook-id: 204 again, onEvent once', async () => {
    const body = event('content.updated', 'dup');
    assert.equal((await post(body, signed(body, 'msg_dup'))).status, 204);
    assert.equal((await post(body, signed(body, 'msg_dup'))).status, 204);
    assert.equal(received.filter(([, id]) => id === 'msg_dup').length, 1);
  });

  it('ignores webhook.test with 204 and no onEvent call', async () => {
    const before = received.length;
    const body = event('webhook.test');
    assert.equal((await post(body, signed(body, 'msg_test'))).status, 204);
    assert.equal(received.length, before);
  });

  it('answers 500 when onEvent throws, so Folio retries', async () => {
    const body = event('content.created', 'explode');
    const res = await post(body, signed(body, 'msg_boom'));
    assert.equal(res.status, 500);
    // The site's own error stays in the site's log: the answer does not carry 'boom'.
    assert.equal(await res.text(), "The site's webhook handler failed; its log has the error");
  });

  it('answers 405 to other methods and 413 to oversized bodies', async () => {
    const get = await fetch(url);
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
    const big = JSON.stringify({
      event: 'content.created',
      projectId: 'p',
      timestamp: 't',
      data: { pad: 'x'.repeat(70_000) },
    });
    assert.equal((await post(big, signed(big, 'msg_big'))).status, 413);
  });
});

/** The `verify` option of express.json(), as @types/express declares it (body-parser's). */
type JsonVerify = (req: IncomingMessage, res: ServerResponse, buf: Buffer, encoding: string) => void;

describe('createWebhookHandler behind a framework', () => {
  /** A response double that records the status the handler wrote. */
  function recorder() {
    const seen = { status: 0, body: '' };
    const res = {
      writeHead(status: number) {
        seen.status = status;
        return {
          end: (body?: string) => {
            seen.body = body ?? '';
          },
        };
      },
    };
    return { seen, res: res as unknown as ServerResponse };
  }

  it('uses a raw body a parser already read (express.raw) and refuses a parsed JSON one', async () => {
    const calls: string[] = [];
    const errors: unknown[] = [];
    const handler = createWebhookHandler({
      secret: SECRET,
      onEvent: (_, id) => void calls.push(id),
      onError: (error) => errors.push(error),
    });
    const body = event('content.created');
    const raw = recorder();
    await handler(
      { method: 'POST', headers: signed(body, 'msg_raw'), body: Buffer.from(body) } as never,
      raw.res,
    );
    assert.equal(raw.seen.status, 204);
    assert.deepEqual(calls, ['msg_raw']);

    const parsed = recorder();
    await handler(
      { method: 'POST', headers: signed(body, 'msg_json'), body: JSON.parse(body) } as never,
      parsed.res,
    );
    assert.equal(parsed.seen.status, 500);
    assert.match(String(errors[0]), /raw body/);
    // Folio's delivery log shows the receiver's answer: the operator reads the cause there.
    assert.equal(parsed.seen.body, 'createWebhookHandler needs the raw body: mount it before a JSON parser');

    // A JSON parser that kept the bytes it parsed (its `verify` hook, or Firebase) is no obstacle.
    const kept = recorder();
    await handler(
      {
        method: 'POST',
        headers: signed(body, 'msg_kept'),
        body: JSON.parse(body),
        rawBody: Buffer.from(body),
      } as never,
      kept.res,
    );
    assert.equal(kept.seen.status, 204);
    assert.deepEqual(calls, ['msg_raw', 'msg_kept']);
  });

  it("keeps the bytes with the README's express.json verify hook, which compiles strictly", async () => {
    // The README's statement, checked by `tsc --noEmit` (npm test) against the type that
    // @types/express gives express.json()'s `verify` (body-parser's): its `req` is a plain
    // IncomingMessage, on which `req.rawBody = buf` does not compile.
    const verify: JsonVerify = (req, _res, buf) => {
      Object.assign(req, { rawBody: buf });
    };
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    assert.match(readme, /verify: \(req, res, buf\) => \{\n\s*Object\.assign\(req, \{ rawBody: buf \}\);/);

    const calls: string[] = [];
    const handler = createWebhookHandler({ secret: SECRET, onEvent: (_, id) => void calls.push(id) });
    const body = event('content.created');
    const req = { method: 'POST', headers: signed(body, 'msg_verify'), body: JSON.parse(body) };
    verify(req as unknown as IncomingMessage, recorder().res, Buffer.from(body), 'utf-8');
    const kept = recorder();
    await handler(req as never, kept.res);
    assert.equal(kept.seen.status, 204);
    assert.deepEqual(calls, ['msg_verify']);
  });

  it('reads the stream when a parser that skipped it left an empty body (Express 4)', async () => {
    const calls: string[] = [];
    const handler = createWebhookHandler({ secret: SECRET, onEvent: (_, id) => void calls.push(id) });
    // Express 4's urlencoded(), mounted for the whole app, sets `req.body = {}` on a JSON request.
    const server = createServer((req, res) => {
      (req as typeof req & { body: unknown }).body = {};
      void handler(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const body = event('content.created');
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {
        method: 'POST',
        body,
        headers: signed(body, 'msg_express4'),
      });
      assert.equal(res.status, 204);
      assert.deepEqual(calls, ['msg_express4']);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
