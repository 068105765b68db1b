import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WHOLE_ANSWER_BYTES, wholeOrStream } from './send-json.ts';

/** Chunks of 64 KiB, `count` of them; `state.ended` once the generator is done, however it ends. */
function chunks(count: number, state: { ended: boolean }) {
  return (async function* () {
    try {
      for (let i = 0; i < count; i++) yield String(i % 10).repeat(64 * 1024);
    } finally {
      state.ended = true;
    }
  })();
}

test('an answer within the bound comes whole; past it, the same text as a stream', async () => {
  const small = await wholeOrStream(chunks(4, { ended: false }));
  assert.ok('whole' in small);
  assert.equal(small.whole.length, 4 * 64 * 1024);

  const count = WHOLE_ANSWER_BYTES / (64 * 1024) + 4;
  const large = await wholeOrStream(chunks(count, { ended: false }));
  assert.ok('stream' in large);
  let text = '';
  for await (const chunk of large.stream) text += chunk;
  assert.equal(text.length, count * 64 * 1024);
  for (let i = 0; i < count; i++) assert.equal(text[i * 64 * 1024], String(i % 10));
});

test('a stream closed early ends the generator it reads from', async () => {
  const state = { ended: false };
  const large = await wholeOrStream(chunks(100, state));
  assert.ok('stream' in large);
  assert.equal(state.ended, false);
  const iterator = large.stream[Symbol.asyncIterator]();
  await iterator.next();
  await iterator.return?.();
  assert.equal(state.ended, true);
});
