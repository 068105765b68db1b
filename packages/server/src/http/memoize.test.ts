import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { memoize } from './memoize.ts';

describe('memoize', () => {
  test('computes each text once, undefined results included, and again once forgotten', () => {
    const computed: string[] = [];
    const parse = memoize(2, (text) => {
      computed.push(text);
      return text === 'none' ? undefined : text.length;
    });
    assert.equal(parse('abc'), 3);
    assert.equal(parse(['a', 'b', 'c'].join('')), 3, 'a new string of the same text');
    assert.equal(parse('none'), undefined);
    assert.equal(parse('none'), undefined);
    assert.deepEqual(computed, ['abc', 'none']);
    assert.equal(parse('four'), 4, 'full: everything is forgotten');
    assert.equal(parse('abc'), 3);
    assert.deepEqual(computed, ['abc', 'none', 'four', 'abc']);
  });
});
