import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify, { type FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import { createAnswerSlots, defaultAnswerSlots } from './answer-slots.ts';
import { installErrorHandling } from './error-handler.ts';
import { createResponseCache } from './response-cache.ts';
import { sendJsonStream } from './send-json.ts';
import { readableOf } from './send-stream.ts';

test('concurrent misses of one streamed answer: each reader gets it whole, one copy is collected', async () => {
  const cache = createResponseCache(1024 * 1024);
  const puts: string[] = [];
  const put = cache.put.bind(cache);
  cache.put = (key, text, etag, expiresAt) => {
    puts.push(text);
    return put(key, text, etag, expiresAt);
  };
  // Each stream sends its first chunk, then waits until both readers are in flight.
  let started = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  async function* chunks() {
    yield '["a"';
    if (++started === 2) release();
    await gate;
    yield ',"b"]';
  }
  const app = Fastify();
  app.decorate('answerSlots', createAnswerSlots(defaultAnswerSlots()));
  app.get('/big', (request, reply) => sendJsonStream(request, reply, cache, 'big:1', chunks));
  try {
    const answers = await Promise.all([app.inject('/big'), app.inject('/big')]);
    assert.deepEqual(
      answers.map((answer) => answer.body),
      ['["a","b"]', '["a","b"]'],
    );
    assert.deepEqual(puts, ['["a","b"]'], 'collected and cached by one of them');
    const third = await app.inject('/big');
    assert.equal(third.body, '["a","b"]');
    assert.equal(started, 2, 'the third was the cached copy');
  } finally {
    await app.close();
  }
});

test('a HEAD answer is an empty body, and the chunks it would have held are ended unread', async () => {
  let read = 0;
  let ended = false;
  async function* chunks() {
    try {
      for (;;) {
        read++;
        yield 'x';
      }
    } finally {
      ended = true;
    }
  }
  const head = readableOf({ method: 'HEAD' } as FastifyRequest, chunks());
  const got: unknown[] = [];
  for await (const chunk of head) got.push(chunk);
  assert.deepEqual(got, []);
  assert.equal(read, 0);

  const source = chunks();
  await source.next();
  readableOf({ method: 'HEAD' } as FastifyRequest, source);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(ended, true, 'a source already started is ended');
});

test('a stream that fails before its first byte is an error answer without the tag it was to carry', async () => {
  const cache = createResponseCache(1024 * 1024);
  // biome-ignore lint/correctness/useYield: fails at its first read, as a database gone away does
  async function* chunks(): AsyncGenerator<string> {
    throw new AppError('unavailable', 'The database is not answering.');
  }
  const app = Fastify();
  app.decorate('answerSlots', createAnswerSlots(defaultAnswerSlots()));
  installErrorHandling(app);
  app.get('/big', (request, reply) => sendJsonStream(request, reply, cache, 'big:1', chunks));
  try {
    for (const encoding of ['gzip', 'identity']) {
      const answer = await app.inject({ url: '/big', headers: { 'accept-encoding': encoding } });
      assert.equal(answer.statusCode, 503, encoding);
      assert.equal(answer.json().error.code, 'unavailable');
      // A tag names the answer's bytes: these are not the list's, and must not validate it later.
      assert.equal(answer.headers.etag, undefined, encoding);
      assert.equal(answer.headers['content-encoding'], undefined, encoding);
    }
  } finally {
    await app.close();
  }
});
