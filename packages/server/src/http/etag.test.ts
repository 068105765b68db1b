import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { encodedTags, heldTag, matchesIfNoneMatch, strongTag } from './etag.ts';

describe('If-None-Match', () => {
  const tags = encodedTags(strongTag('{"a":1}'));
  const identity = tags.identity;
  const br = tags.br;
  const gzip = tags.gzip;

  test('names the tag held, in whichever encoding it was sent', () => {
    assert.equal(heldTag(tags, identity), identity);
    assert.equal(heldTag(tags, br), br);
    assert.equal(heldTag(tags, gzip), gzip);
    assert.equal(new Set([identity, br, gzip]).size, 3);
  });

  test('weak comparison, lists and * match; other tags and no header do not', () => {
    assert.equal(heldTag(tags, `W/${gzip}`), gzip);
    assert.equal(heldTag(tags, `"other",  ${br} `), br);
    assert.equal(heldTag(tags, ' * '), identity);
    assert.equal(heldTag(tags, '"other"'), undefined);
    assert.equal(heldTag(tags, `${identity.slice(0, -2)}"`), undefined);
    assert.equal(heldTag(tags, ''), undefined);
    assert.equal(heldTag(tags, undefined), undefined);
  });
});

describe('one tag', () => {
  test('matchesIfNoneMatch: exact, weak, in a list, or *', () => {
    const tag = strongTag('x');
    assert.equal(matchesIfNoneMatch(tag, tag), true);
    assert.equal(matchesIfNoneMatch(`"a", W/${tag}`, tag), true);
    assert.equal(matchesIfNoneMatch('*', tag), true);
    assert.equal(matchesIfNoneMatch('"a"', tag), false);
    assert.equal(matchesIfNoneMatch(undefined, tag), false);
  });

  test('strongTag: equal bytes, equal tags; a string and its bytes agree', () => {
    assert.equal(strongTag('{"a":1}'), strongTag(Buffer.from('{"a":1}')));
    assert.notEqual(strongTag('{"a":1}'), strongTag('{"a":2}'));
  });
});
