import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ADMIN_TOKEN, createTestApp, TEST_BASE_URL, type TestApp } from '../test/test-app.ts';
import { createHttpServer } from './server.ts';

/*
 * A body far over the limit is refused while the client is still sending it. Only a real socket
 * shows whether the connection survives until the client has sent it and read the answer:
 * `inject` has no connection to reset.
 */

const BODY_BYTES = 8 * 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;
const TRIES = 10;

const TOO_LARGE = JSON.stringify({
  success: false,
  error: { code: 'payload_too_large', message: 'The request body is larger than 1 MiB.' },
});

/** The whole body at once, framed by its length or in chunks. */
function bodyBytes(chunked: boolean): Buffer {
  const content = Buffer.alloc(BODY_BYTES, ' ');
  if (!chunked) return content;
  const framed: Buffer[] = [];
  for (let at = 0; at < content.length; at += CHUNK_BYTES) {
    const chunk = content.subarray(at, at + CHUNK_BYTES);
    framed.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'));
  }
  framed.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(framed);
}

/**
 * Sends `head` and `body` on a fresh connection, reading as it writes. Resolves with the answer's
 * status line and body once the request is all sent and the answer all read, or with the error
 * that cut the connection before that: a client whose sending fails takes the request as lost,
 * as Node's HTTP client and fetch do, whatever has arrived meanwhile.
 */
function send(port: number, head: string, body: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let sent = false;
    let answer = Buffer.alloc(0);
    const finish = (outcome: string) => {
      socket.destroy();
      resolve(outcome);
    };
    const finishIfAnswered = () => {
      const end = answer.indexOf('\r\n\r\n');
      if (!sent || end === -1) return;
      const lines = answer.subarray(0, end).toString('latin1').split('\r\n');
      const length = lines.find((line) => /^content-length:/i.test(line))?.split(':')[1];
      const content = answer.subarray(end + 4);
      if (content.length >= Number(length)) finish(`${lines[0]} ${content.toString('utf8')}`);
    };
    socket.on('data', (chunk: Buffer) => {
      answer = Buffer.concat([answer, chunk]);
      finishIfAnswered();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
    socket.on('close', () => finish(`closed after ${answer.length} bytes of answer`));
    // A server that neither answers nor closes fails the test rather than hanging it.
    socket.setTimeout(20_000, () => finish('no answer'));
    socket.write(head);
    socket.write(body, (error) => {
      if (error) return finish((error as NodeJS.ErrnoException).code ?? error.message);
      sent = true;
      finishIfAnswered();
    });
  });
}

const requestHead = (target: string, headers: string[]) =>
  [`${target} HTTP/1.1`, 'Host: folio.test', ...headers, '', ''].join('\r\n');

describe('a body far over the limit, refused while the client still sends it', () => {
  let t: TestApp;
  let port: number;
  let articleUrl: string;

  before(async () => {
    t = await createTestApp('sqlite');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
    articleUrl = `/admin/v1/projects/${(await t.createProject()).id}/articles/big`;
  });
  after(() => t.close());

  test('a client that never stops sending is answered, then cut off after a bounded amount', async () => {
    const head = requestHead(`PUT ${articleUrl}`, [
      `Authorization: Bearer ${ADMIN_TOKEN}`,
      'Content-Type: application/json',
      'Transfer-Encoding: chunked',
    ]);
    const chunk = Buffer.concat([
      Buffer.from(`${CHUNK_BYTES.toString(16)}\r\n`),
      Buffer.alloc(CHUNK_BYTES, ' '),
      Buffer.from('\r\n'),
    ]);
    const { answer, sent } = await new Promise<{ answer: string; sent: number }>((resolve) => {
      // Half-open: the server's end of its side does not stop this client sending.
      const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
      let answer = '';
      let sent = 0;
      socket.setEncoding('utf8');
      socket.on('data', (text: string) => {
        answer += text;
      });
      socket.on('error', () => {});
      socket.on('close', () => resolve({ answer, sent }));
      socket.write(head);
      const pump = () => {
        while (!socket.destroyed) {
          sent += chunk.length;
          if (!socket.write(chunk)) return void socket.once('drain', pump);
        }
      };
      pump();
    });
    assert.ok(answer.endsWith(TOO_LARGE), answer);
    // What the server drops is bounded; what the kernel's buffers hold comes on top.
    assert.ok(sent < 128 * 1024 * 1024, `${sent} bytes sent before the cut`);
  });

  for (const chunked of [false, true]) {
    const framing = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${BODY_BYTES}`;
    const tries = async (head: string) => {
      const body = bodyBytes(chunked);
      const outcomes: string[] = [];
      for (let i = 0; i < TRIES; i++) outcomes.push(await send(port, head, body));
      return outcomes;
    };

    test(`an article PUT is answered 413 in the contract's shape every time (${framing.split(':')[0]})`, async () => {
      const head = requestHead(`PUT ${articleUrl}`, [
        `Authorization: Bearer ${ADMIN_TOKEN}`,
        'Content-Type: application/json',
        framing,
      ]);
      assert.deepEqual(await tries(head), Array(TRIES).fill(`HTTP/1.1 413 Payload Too Large ${TOO_LARGE}`));
    });

    test(`a dashboard form is answered with its 413 page every time (${framing.split(':')[0]})`, async () => {
      const head = requestHead('POST /dashboard/sign-in', [
        `Origin: ${TEST_BASE_URL}`,
        'Content-Type: application/x-www-form-urlencoded',
        framing,
      ]);
      const refusal = 'HTTP/1.1 413 Payload Too Large ';
      const outcomes = (await tries(head)).map((outcome) =>
        outcome.startsWith(refusal) && outcome.includes('The form is too large.') ? '413 page' : outcome,
      );
      assert.deepEqual(outcomes, Array(TRIES).fill('413 page'));
    });
  }
});

test('a request sent behind a refused body is not served: its connection was closing', async () => {
  const served: string[] = [];
  const server = createHttpServer((request, response) => {
    served.push(request.url!);
    // As the framework refuses a body over its limit: at once, unread, closing the connection.
    response.writeHead(413, { connection: 'close', 'content-length': '0' }).end();
  });
  // The server's side of the connection, which closes once the server has read all it will.
  const closed = new Promise((resolve) =>
    server.once('connection', (socket) => socket.once('close', resolve)),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
  try {
    let answer = '';
    client.setEncoding('latin1');
    client.on('data', (chunk: string) => {
      answer += chunk;
    });
    // How the server ends the connection is not the point here.
    client.on('error', () => {});
    const clientClosed = new Promise((resolve) => client.once('close', resolve));
    const head = requestHead('PUT /refused', [`Content-Length: ${BODY_BYTES}`]);
    client.write(
      Buffer.concat([Buffer.from(head), bodyBytes(false), Buffer.from(requestHead('GET /behind', []))]),
    );
    await Promise.all([closed, clientClosed]);
    assert.deepEqual(served, ['/refused']);
    assert.deepEqual(answer.match(/^HTTP\/1\.1 \d+/gm), ['HTTP/1.1 413']);
  } finally {
    client.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});
