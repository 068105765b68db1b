import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { firstParagraphSummary, sitemapEntryWriter, toSitemapEntry } from './article-view.ts';

test('the sitemap entry writer writes the JSON of the entry object, for any slug and site', () => {
  const slug = fc.oneof(
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
    fc.constantFrom('a"b', 'back\\slash', "it's", 'ünïcödé', '🦊-fox', 'a+b&c=d', '\u2028\u2029'),
  );
  const site = fc.record({
    website_url: fc.constantFrom(
      'https://www.example.com',
      'http://localhost:3000',
      'https://example.com/a"b',
    ),
    articles_path: fc.constantFrom('', '/blog', "/it's/(news)", '/a\\b'),
  });
  const updatedAt = fc.oneof(fc.integer({ min: 0, max: 253_402_300_799_999 }), fc.constant(8.64e15));
  fc.assert(
    fc.property(slug, site, updatedAt, (slug, site, updated_at) => {
      const row = { slug, updated_at };
      const text = sitemapEntryWriter(site.website_url, site)(slug, updated_at);
      assert.equal(text, JSON.stringify(toSitemapEntry(row, site.website_url, site)));
      assert.deepEqual(JSON.parse(text), toSitemapEntry(row, site.website_url, site));
    }),
    { numRuns: 2000, seed: process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined },
  );
});

test('a description cut where no word ends never splits a character in two', () => {
  const paragraph = (text: string) => [{ type: 'paragraph' as const, content: [{ text }] }];
  for (const text of ['😀'.repeat(100), `a${'😀'.repeat(100)}`, `${'x'.repeat(159)}😀`, 'y'.repeat(200)]) {
    const description = firstParagraphSummary(paragraph(text));
    assert.ok(description.isWellFormed(), JSON.stringify(description.slice(-2)));
    assert.ok(text.startsWith(description));
    assert.ok(description.length >= 159 && description.length <= 160, String(description.length));
  }
});
