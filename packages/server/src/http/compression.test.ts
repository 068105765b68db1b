import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { negotiateEncoding } from './compression.ts';

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

  test('follows the q-values between codings, br on a tie', () => {
    assert.equal(negotiateEncoding('br;q=0.5, gzip;q=1'), 'gzip');
    assert.equal(negotiateEncoding('gzip;q=0.8, br;q=0.8'), 'br');
    assert.equal(negotiateEncoding('gzip;q=0.2, *;q=0.5'), 'br');
    assert.equal(negotiateEncoding('identity;q=1, br;q=0.5, gzip;q=0.5'), 'identity');
    assert.equal(negotiateEncoding('identity, br'), 'br');
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
