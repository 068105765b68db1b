import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import {
  createResponseCache,
  deliveryCacheKey,
  ENTRY_OVERHEAD_BYTES,
  entryCost,
  VARIANT_OVERHEAD_BYTES,
} from './response-cache.ts';

describe('response cache', () => {
  test('counts each entry’s body, key and overhead; one larger than the bound is served, not stored', () => {
    const unit = entryCost('a', 100);
    assert.ok(unit >= ENTRY_OVERHEAD_BYTES + 101);
    const cache = createResponseCache(3 * unit);
    cache.put('a', 'a'.repeat(100));
    cache.put('b', 'b'.repeat(100));
    assert.equal(cache.bytes, 2 * unit);
    assert.equal(cache.entries, 2);
    const huge = cache.put('huge', 'x'.repeat(3 * unit));
    assert.equal(huge.body.length, 3 * unit);
    assert.equal(cache.get('huge'), undefined, 'larger than the whole cache: served, not stored');
    assert.ok(cache.get('a') && cache.get('b'));
    cache.put('a', 'A'.repeat(100));
    assert.equal(cache.get('a')?.body.toString(), 'A'.repeat(100), 'replaced, not counted twice');
    assert.equal(cache.bytes, 2 * unit);
  });

  test('an answer asked for again outlives any number of answers asked for once', () => {
    const unit = entryCost('k0000', 100);
    const cache = createResponseCache(10 * unit);
    cache.put('hot01', 'h'.repeat(100));
    assert.ok(cache.get('hot01'), 'a repeated read is a hit');
    for (let i = 0; i < 2_000; i++) cache.put(`k${String(i).padStart(4, '0')}`, 'o'.repeat(100));
    assert.ok(cache.get('hot01'));
    assert.ok(cache.get('k1999'), 'the newest one-time answer is kept');
    assert.equal(cache.get('k0000'), undefined);
    assert.equal(cache.entries, 10);
    assert.ok(cache.bytes <= cache.maxBytes);
  });

  test('past its share, the protected part sends its least recently used back; one more hit saves it', () => {
    const unit = entryCost('a', 100);
    // Protected answers may fill four fifths: four of five.
    const cache = createResponseCache(5 * unit);
    for (const key of ['a', 'b', 'c', 'd', 'e']) cache.put(key, key.repeat(100));
    for (const key of ['a', 'b', 'c', 'd']) assert.ok(cache.get(key), 'moves to the protected part');
    assert.ok(cache.get('a'), 'a hit in the protected part marks a');
    assert.ok(cache.get('e'), 'e moves up; b, the first one not marked, goes back');
    assert.ok(cache.get('b'), 'asked for again: back up; c goes back');
    cache.put('f', 'f'.repeat(100));
    assert.equal(cache.get('c'), undefined, 'room is made in probation first');
    for (const key of ['a', 'b', 'd', 'e', 'f']) assert.ok(cache.get(key), key);
    assert.equal(cache.bytes, 5 * unit);
  });

  test('compressed variants count against the bound and decompress to the same bytes', async () => {
    const cache = createResponseCache(1_000_000);
    const text = JSON.stringify({
      data: Array.from({ length: 200 }, (_, i) => ({ i, text: 'hello world' })),
    });
    const entry = cache.put('k', text);
    const br = await cache.encode(entry, 'br');
    const gz = await cache.encode(entry, 'gzip');
    assert.equal(brotliDecompressSync(br).toString(), text);
    assert.equal(gunzipSync(gz).toString(), text);
    assert.ok(br.length < text.length / 3);
    assert.equal(await cache.encode(entry, 'br'), br, 'compressed once');
    assert.equal(
      cache.bytes,
      entryCost('k', text.length) + br.length + gz.length + 2 * VARIANT_OVERHEAD_BYTES,
    );
    assert.notEqual(entry.tags.br, entry.tags.gzip);
    const tiny = cache.put(undefined, 'tiny');
    assert.equal(await cache.encode(tiny, 'br'), tiny.body, 'small bodies are not compressed');
  });

  test('kept bodies do not pin a shared pool of other bytes', () => {
    const entry = createResponseCache(1_000_000).put('k', '{"a":1}');
    assert.equal(entry.body.buffer.byteLength, entry.body.length);
  });

  test('what an entry is accounted covers the memory it really holds', () => {
    // Heap and external memory after full collections; RSS (what ENTRY_OVERHEAD_BYTES is set
    // from) moves with the allocator too much for a test.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const settled = () => {
      for (let i = 0; i < 3; i++) gc();
      const { heapUsed, external } = process.memoryUsage();
      return heapUsed + external;
    };
    const cache = createResponseCache(Number.MAX_SAFE_INTEGER);
    const pastTheEnd = (page: number) =>
      `{"success":true,"data":[],"pagination":{"page":${page},"limit":20,"total":3,"totalPages":1}}`;
    const count = 5_000;
    const before = settled();
    for (let page = 2; page < count + 2; page++) {
      cache.put(deliveryCacheKey('prj_0123456789abcdefab12', 7, `list:${page}:20`), pastTheEnd(page));
    }
    const held = settled() - before;
    assert.equal(cache.entries, count);
    assert.ok(cache.bytes >= held, `accounted ${cache.bytes} bytes, held ${held}`);
  });

  test('size 0 turns caching off', () => {
    const cache = createResponseCache(0);
    cache.put('a', 'x');
    assert.equal(cache.get('a'), undefined);
  });
});
