import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { ADMIN_TOKEN, createTestApp, newArticle, type TestApp } from '../test/test-app.ts';

/**
 * Sends `head` (request line and headers, no body) over a fresh socket and reads the answer's
 * status line. `inject` cannot show this: it never passes through the HTTP server's parser.
 */
function rawStatus(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(`${head}\r\n\r\n`));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      answer += chunk;
      if (answer.includes('\r\n')) {
        socket.destroy();
        resolve(answer.slice(0, answer.indexOf('\r\n')));
      }
    });
    socket.on('error', reject);
    // A request left waiting for a body that never comes would hang the test instead.
    socket.setTimeout(5_000, () => {
      socket.destroy();
      resolve('no answer within 5 s');
    });
  });
}

describe('a request with a Content-Type but no body over a real socket', () => {
  let t: TestApp;
  let port: number;
  let projectId: string;

  before(async () => {
    t = await createTestApp('sqlite');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
    projectId = (await t.createProject()).id;
    await t.putArticle(projectId, 'a1', newArticle({ slug: 's1' }));
  });
  after(() => t.close());

  const head = (method: string, path: string, headers: string[] = []) =>
    [
      `${method} ${path} HTTP/1.1`,
      'Host: folio.test',
      `Authorization: Bearer ${ADMIN_TOKEN}`,
      'Content-Type: application/json',
      'Connection: close',
      ...headers,
    ].join('\r\n');

  test('is answered as one with an empty body: actions run, a required body is missing', async () => {
    const admin = `/admin/v1/projects/${projectId}`;
    const keyId = (await t.admin('POST', `${admin}/keys`, { name: 'k' })).json().data.id as string;

    assert.equal(await rawStatus(port, head('POST', `${admin}/articles/a1/publish`)), 'HTTP/1.1 200 OK');
    assert.equal(await rawStatus(port, head('DELETE', `${admin}/keys/${keyId}`)), 'HTTP/1.1 204 No Content');
    assert.equal(await rawStatus(port, head('PUT', `${admin}/articles/a2`)), 'HTTP/1.1 400 Bad Request');
    // With a Content-Length of 0, as before.
    const unpublish = head('POST', `${admin}/articles/a1/unpublish`, ['Content-Length: 0']);
    assert.equal(await rawStatus(port, unpublish), 'HTTP/1.1 200 OK');
    assert.equal((await t.admin('GET', `${admin}/articles/a1`)).json().data.published, false);
  });

  test('a body that is not UTF-8 is refused, not stored with U+FFFD in place of its bytes', async () => {
    const body = Buffer.from(JSON.stringify(newArticle({ slug: 'latin', title: 'Caf?' })));
    body[body.indexOf('Caf?') + 3] = 0xe9; // "é" in Latin-1
    const response = await t.app.inject({
      method: 'PUT',
      url: `/admin/v1/projects/${projectId}/articles/latin`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload: body,
    });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json().error, {
      code: 'invalid_body',
      message: 'The request body is not valid UTF-8.',
    });
    assert.equal((await t.admin('GET', `/admin/v1/projects/${projectId}/articles/latin`)).statusCode, 404);
  });

  test('a compressed body is 415, not read as its compressed bytes', async () => {
    const article = JSON.stringify(newArticle({ slug: 'zipped' }));
    const put = (coding: string, payload: Buffer | string) =>
      t.app.inject({
        method: 'PUT',
        url: `/admin/v1/projects/${projectId}/articles/zipped`,
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          'content-type': 'application/json',
          'content-encoding': coding,
        },
        payload,
      });
    for (const coding of ['gzip', 'br']) {
      const response = await put(coding, gzipSync(article));
      assert.equal(response.statusCode, 415, coding);
      assert.equal(response.json().error.code, 'unsupported_media_type');
      assert.match(response.json().error.message, new RegExp(`Content-Encoding: ${coding}`));
    }
    const plain = await put('identity', article);
    assert.equal(plain.statusCode, 201, plain.body);
  });

  test('with a media type other than JSON answers 415 at once', async () => {
    const request = head('POST', `/admin/v1/projects/${projectId}/articles/a1/publish`).replace(
      'application/json',
      'text/plain',
    );
    assert.equal(await rawStatus(port, request), 'HTTP/1.1 415 Unsupported Media Type');
  });
});
