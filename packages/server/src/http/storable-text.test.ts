import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { findUnstorableText, MAX_JSON_DEPTH, mayHoldUnstorableText } from './storable-text.ts';

const nested = (depth: number) => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`);

describe('text and nesting a body may hold', () => {
  test('NUL and lone surrogates are named by their pointer, in values and member names', () => {
    assert.deepEqual(findUnstorableText({ a: [{ b: 'x\u0000' }] })?.path, '/a/0/b');
    assert.deepEqual(findUnstorableText({ 'c/d': '\ud800' })?.path, '/c~1d');
    assert.match(findUnstorableText({ ['k\u0000']: 1 })?.message ?? '', /has a name that contains a NUL/);
    assert.equal(findUnstorableText({ emoji: '😀', text: 'café' }), undefined);
  });

  test('a number JSON.parse read as infinite is named; large finite ones pass', () => {
    assert.deepEqual(findUnstorableText(JSON.parse('{"a":[1,1e400]}')), {
      path: '/a/1',
      message: 'is a number too large to be stored',
    });
    assert.equal(findUnstorableText(JSON.parse('{"a":1.7e308,"b":1e-400}')), undefined);
    assert.equal(mayHoldUnstorableText('{"a":[1,-1E+400]}'), true);
    assert.equal(mayHoldUnstorableText(`{"a":${'9'.repeat(309)}}`), true);
    assert.equal(mayHoldUnstorableText('{"a":1.7e308,"b":1e-400,"c":"1e400"}'), false);
  });

  test(`nesting up to ${MAX_JSON_DEPTH} levels passes; deeper is refused without recursion`, () => {
    assert.equal(findUnstorableText(nested(MAX_JSON_DEPTH)), undefined);
    const refused = findUnstorableText({ jsonLd: nested(100_000) });
    assert.match(refused?.message ?? '', /nested deeper than 256 levels/);
    assert.equal(refused?.path.split('/').length, MAX_JSON_DEPTH + 1);
  });

  test('the scan of the text finds whatever the walk would, and passes a body without any', () => {
    // Python's json.dumps escapes every character past ASCII, an emoji as two escapes.
    const asciiOnly = (value: unknown) =>
      JSON.stringify(value).replace(
        /[\u007f-\uffff]/g,
        (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
      );
    const text = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.constantFrom('\u0000', '\ud800', '\udfff', 'a\ud83d', '\ude00b', '😀', '"{[\\u0000', ''),
    );
    const leaf = fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null));
    const value = fc.letrec<{ value: unknown }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(text, tie('value'), { maxKeys: 4 }),
        fc.integer({ min: MAX_JSON_DEPTH - 3, max: MAX_JSON_DEPTH + 3 }).map((depth) => nested(depth)),
      ),
    })).value;
    fc.assert(
      fc.property(value, (parsed) => {
        const found = findUnstorableText(parsed) !== undefined;
        for (const json of [JSON.stringify(parsed), asciiOnly(parsed)]) {
          assert.equal(mayHoldUnstorableText(json), found, json.slice(0, 200));
        }
      }),
      { numRuns: 2000 },
    );
  });

  test('escapes and brackets inside strings are text, not nesting or NUL', () => {
    assert.equal(mayHoldUnstorableText(JSON.stringify({ a: '[{'.repeat(1000), b: '\\u0000' })), false);
    assert.equal(mayHoldUnstorableText('{"pair":"\\ud83d\\ude00","quote":"\\"\\u0000"}'), true);
    assert.equal(mayHoldUnstorableText('{"pair":"\\ud83d\\ude00","quote":"\\"\\u0041"}'), false);
  });
});
