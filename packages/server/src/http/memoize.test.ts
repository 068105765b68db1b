import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { memoize, memoizeLast } from './memoize.ts';

describe('memoize', () => {
  test('computes each text once, undefined results included, and again once forgotten', () => {
    const computed: string[] = [];
    const parse = memoize({ entries: 2, chars: 1_000 }, (text) => {
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

  test('long texts fill it by their characters, and one longer than all of it is never kept', () => {
    const computed: string[] = [];
    const parse = memoize({ entries: 1_000, chars: 10 }, (text) => {
      computed.push(text);
      return text.length;
    });
    parse('aaaa');
    parse('bbbb');
    parse('aaaa');
    assert.deepEqual(computed, ['aaaa', 'bbbb']);
    parse('cccc');
    parse('aaaa');
    assert.deepEqual(computed, ['aaaa', 'bbbb', 'cccc', 'aaaa'], 'past 10 characters, all forgotten');
    parse('x'.repeat(11));
    parse('x'.repeat(11));
    parse('cccc');
    assert.deepEqual(computed.slice(4), ['x'.repeat(11), 'x'.repeat(11)], 'cccc was kept meanwhile');
  });

  test('with the last text in front: the same values, each text computed once', () => {
    const computed: string[] = [];
    const parse = memoizeLast({ entries: 10, chars: 1_000 }, (text) => {
      computed.push(text);
      return text === 'none' ? undefined : text.length;
    });
    const texts = ['abc', ['a', 'b', 'c'].join(''), 'none', 'none', 'four', 'abc', 'none', 'four'];
    assert.deepEqual(
      texts.map((text) => parse(text)),
      [3, 3, undefined, undefined, 4, 3, undefined, 4],
    );
    assert.deepEqual(computed, ['abc', 'none', 'four']);
  });
});
