import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { findUnstorableText, MAX_JSON_DEPTH } from './storable-text.ts';

const nested = (depth: number) => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`);

describe('text and nesting a body may hold', () => {
  test('NUL and lone surrogates are named by their pointer, in values and member names', () => {
    assert.deepEqual(findUnstorableText({ a: [{ b: 'x\u0000' }] })?.path, '/a/0/b');
    assert.deepEqual(findUnstorableText({ 'c/d': '\ud800' })?.path, '/c~1d');
    assert.match(findUnstorableText({ ['k\u0000']: 1 })?.message ?? '', /has a name that contains a NUL/);
    assert.equal(findUnstorableText({ emoji: '😀', text: 'café' }), undefined);
  });

  test(`nesting up to ${MAX_JSON_DEPTH} levels passes; deeper is refused without recursion`, () => {
    assert.equal(findUnstorableText(nested(MAX_JSON_DEPTH)), undefined);
    const refused = findUnstorableText({ jsonLd: nested(100_000) });
    assert.match(refused?.message ?? '', /nested deeper than 256 levels/);
    assert.equal(refused?.path.split('/').length, MAX_JSON_DEPTH + 1);
  });
});
