import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../test/test-app.ts';

/*
 * What Node's HTTP parser refuses never reaches a route, and `inject` cannot send it: these
 * tests write raw bytes to a real socket and read the whole answer back.
 */

/** Sends `bytes` and resolves with everything the server wrote before it closed. */
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
    // Enough for any answer; a server that keeps the connection open ends the exchange here.
    setTimeout(() => socket.end(), 2_000).unref();
  });
}

function parse(answer: string): {
  status: number;
  headers: string;
  body: { success: boolean; error: { code: string; message: string } };
} {
  const [head, body] = answer.split('\r\n\r\n', 2) as [string, string];
  const status = Number(head.split(' ')[1]);
  return { status, headers: head.toLowerCase(), body: JSON.parse(body) };
}

describe('errors raised by the HTTP parser', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await createTestApp('sqlite');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  after(() => t.close());

  const cases = [
    {
      what: 'oversized headers',
      bytes: `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`,
      status: 431,
      code: 'headers_too_large',
    },
    { what: 'a malformed request line', bytes: 'NOT HTTP AT ALL\r\n\r\n', status: 400, code: 'bad_request' },
    {
      what: 'an unknown method',
      bytes: 'BREW /healthz HTTP/1.1\r\nHost: x\r\n\r\n',
      status: 400,
      code: 'bad_request',
    },
    {
      what: 'a bad header line',
      bytes: 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
      status: 400,
      code: 'bad_request',
    },
    {
      what: 'a CONNECT request, which Node hands to no request handler',
      bytes: 'CONNECT 127.0.0.1:80 HTTP/1.1\r\nHost: 127.0.0.1:80\r\n\r\n',
      status: 404,
      code: 'not_found',
    },
    {
      what: 'an HTTP/1.1 request without a Host header',
      bytes: 'GET /healthz HTTP/1.1\r\n\r\n',
      status: 400,
      code: 'bad_request',
    },
    {
      what: 'a delivery read without a Host header, which the fast path sees first',
      bytes: 'GET /api/v1/projects/prj_x/content HTTP/1.1\r\nAuthorization: Bearer folio_ck_x\r\n\r\n',
      status: 400,
      code: 'bad_request',
    },
    {
      what: 'a request with two Host headers',
      bytes: 'GET /healthz HTTP/1.1\r\nHost: a.example\r\nhost: b.example\r\n\r\n',
      status: 400,
      code: 'bad_request',
    },
    {
      what: 'a Host header that is no host',
      bytes: 'GET /healthz HTTP/1.1\r\nHost: a.example/path\r\n\r\n',
      status: 400,
      code: 'bad_request',
    },
    {
      what: 'a delivery read with two Host headers, which the fast path sees first',
      bytes:
        'GET /api/v1/projects/prj_x/content HTTP/1.1\r\nHost: a\r\nHost: b\r\nAuthorization: Bearer folio_ck_x\r\n\r\n',
      status: 400,
      code: 'bad_request',
    },
    {
      what: 'an expectation other than 100-continue, which Node refuses by itself',
      bytes: 'PUT /healthz HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\nContent-Length: 2\r\n\r\n{}',
      status: 417,
      code: 'expectation_failed',
    },
  ];
  for (const { what, bytes, status, code } of cases) {
    test(`${what} answers ${status} in the contract's shape`, async () => {
      const answer = parse(await exchange(port, bytes));
      assert.equal(answer.status, status);
      assert.match(answer.headers, /content-type: application\/json/);
      assert.match(answer.headers, /connection: close/);
      assert.equal(answer.body.success, false);
      assert.equal(answer.body.error.code, code);
      assert.ok(answer.body.error.message.length > 0);
    });
  }

  test('a Host header of any form RFC 3986 gives a host is taken', async () => {
    for (const host of [
      '',
      'a.example',
      'A.Example.:8080',
      '127.0.0.1:80',
      '[::1]:8080',
      'xn--caf-dma.example',
    ]) {
      const answer = await exchange(
        port,
        `GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      );
      assert.match(answer, /^HTTP\/1\.1 200 /, host);
    }
  });

  test('an HTTP/1.0 request needs no Host header', async () => {
    const answer = await exchange(port, 'GET /healthz HTTP/1.0\r\n\r\n');
    assert.match(answer, /^HTTP\/1\.1 200 /);
  });

  test('a method Node knows but no route has answers 404 in the contract shape', async () => {
    const answer = parse(
      await exchange(port, 'PROPFIND /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
    );
    assert.equal(answer.status, 404);
    assert.equal(answer.body.error.code, 'not_found');
  });
});
