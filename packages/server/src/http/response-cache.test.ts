import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { createResponseCache, etagFor, heldTag, negotiateEncoding } from './response-cache.ts';

describe('response cache', () => {
  test('keeps at most maxBytes, dropping the least recently used first', () => {
    const cache = createResponseCache(250);
    cache.put('a', 'a'.repeat(100));
    cache.put('b', 'b'.repeat(100));
    assert.ok(cache.get('a'), 'touching a makes b the oldest');
    cache.put('c', 'c'.repeat(100));
    assert.equal(cache.get('b'), undefined);
    assert.ok(cache.get('a'));
    assert.ok(cache.get('c'));
    assert.equal(cache.bytes, 200);
    cache.put('huge', 'x'.repeat(1000));
    assert.equal(cache.get('huge'), undefined, 'larger than the whole cache: served, not stored');
    assert.ok(cache.get('a'));
  });

  test('entries asked for get a second chance; when all were, the oldest goes first', () => {
    const cache = createResponseCache(300);
    for (const key of ['a', 'b', 'c']) cache.put(key, key.repeat(100));
    for (const key of ['c', 'b', 'a']) assert.ok(cache.get(key));
    cache.put('d', 'd'.repeat(100));
    assert.equal(cache.get('a'), undefined);
    // b, c, d: b and c were passed over (their marks cleared) and d is new; ask for b only.
    assert.ok(cache.get('b'));
    cache.put('e', 'e'.repeat(100));
    assert.equal(cache.get('c'), undefined, 'the first one not asked for since the last pass');
    assert.ok(cache.get('b') && cache.get('d') && cache.get('e'));
    assert.equal(cache.bytes, 300);
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
    assert.equal(cache.bytes, text.length + br.length + gz.length);
    assert.notEqual(etagFor(entry, 'br'), etagFor(entry, 'gzip'));
    const tiny = cache.put(undefined, 'tiny');
    assert.equal(await cache.encode(tiny, 'br'), tiny.body, 'small bodies are not compressed');
  });

  test('size 0 turns caching off', () => {
    const cache = createResponseCache(0);
    cache.put('a', 'x');
    assert.equal(cache.get('a'), undefined);
  });
});

describe('Accept-Encoding negotiation', () => {
  test('prefers br, then gzip; honours q=0 and *', () => {
    assert.equal(negotiateEncoding(undefined), 'identity');
    assert.equal(negotiateEncoding('gzip, deflate, br'), 'br');
    assert.equal(negotiateEncoding('gzip'), 'gzip');
    assert.equal(negotiateEncoding('br;q=0, gzip;q=0.5'), 'gzip');
    assert.equal(negotiateEncoding('*'), 'br');
    assert.equal(negotiateEncoding('*;q=0, gzip'), 'gzip');
    assert.equal(negotiateEncoding('identity'), 'identity');
    assert.equal(negotiateEncoding('deflate'), 'identity');
  });

  test('answers stay right when asked again, and once more headers were seen than are kept', () => {
    const headers = Array.from({ length: 2_500 }, (_, i) => `gzip;q=0.${i % 9}, x-${i}`);
    for (let pass = 0; pass < 2; pass++) {
      assert.equal(negotiateEncoding('gzip, deflate, br, zstd'), 'br');
      assert.equal(negotiateEncoding('br;q=0, gzip;q=0'), 'identity');
      for (const [i, header] of headers.entries())
        assert.equal(negotiateEncoding(header), i % 9 === 0 ? 'identity' : 'gzip', header);
    }
  });
});

describe('If-None-Match', () => {
  const entry = createResponseCache(1024).put('k', '{"a":1}');
  const identity = etagFor(entry, 'identity');
  const br = etagFor(entry, 'br');
  const gzip = etagFor(entry, 'gzip');

  test('names the tag held, in whichever encoding it was sent', () => {
    assert.equal(heldTag(entry, identity), identity);
    assert.equal(heldTag(entry, br), br);
    assert.equal(heldTag(entry, gzip), gzip);
    assert.equal(new Set([identity, br, gzip]).size, 3);
  });

  test('weak comparison, lists and * match; other tags and no header do not', () => {
    assert.equal(heldTag(entry, `W/${gzip}`), gzip);
    assert.equal(heldTag(entry, `"other",  ${br} `), br);
    assert.equal(heldTag(entry, ' * '), identity);
    assert.equal(heldTag(entry, '"other"'), undefined);
    assert.equal(heldTag(entry, `${identity.slice(0, -2)}"`), undefined);
    assert.equal(heldTag(entry, ''), undefined);
    assert.equal(heldTag(entry, undefined), undefined);
  });
});
