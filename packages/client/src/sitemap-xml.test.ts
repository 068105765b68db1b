import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SitemapEntry } from './generated/schema.ts';
import { chunkSitemapEntries, SITEMAP_MAX_URLS, sitemapIndexXml, sitemapXml } from './sitemap-xml.ts';

const entry = (url: string, lastModified = '2026-11-20T10:00:00.000Z'): SitemapEntry => ({
  url,
  lastModified,
});

describe('sitemapXml', () => {
  it('renders a urlset with loc and lastmod', () => {
    assert.equal(
      sitemapXml([
        entry('https://example.com/blog/a'),
        entry('https://example.com/blog/b', '2026-01-02T03:04:05.000Z'),
      ]),
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
        '<url><loc>https://example.com/blog/a</loc><lastmod>2026-11-20T10:00:00.000Z</lastmod></url>',
        '<url><loc>https://example.com/blog/b</loc><lastmod>2026-01-02T03:04:05.000Z</lastmod></url>',
        '</urlset>',
        '',
      ].join('\n'),
    );
  });

  it('escapes &, <, >, quotes and drops characters XML forbids', () => {
    const xml = sitemapXml([entry(`https://example.com/a?x=1&y=<2>&z="3"&w='4'\u0001`)]);
    assert.match(
      xml,
      /<loc>https:\/\/example\.com\/a\?x=1&amp;y=&lt;2&gt;&amp;z=&quot;3&quot;&amp;w=&apos;4&apos;<\/loc>/,
    );
    assert.ok(!xml.includes('\u0001'));
  });

  it('renders an empty urlset for no entries', () => {
    assert.match(
      sitemapXml([]),
      /<urlset xmlns="http:\/\/www\.sitemaps\.org\/schemas\/sitemap\/0\.9">\n<\/urlset>/,
    );
  });

  it('writes lastModified as the lastmod value exactly as given, escaped', () => {
    const xml = sitemapXml([
      entry('https://example.com/a', '2026-01-01'),
      entry('https://example.com/b', '2026-01-02T03:04:05+02:00'),
      entry('https://example.com/c', '2026-11-20T10:00:00.000Z'),
      entry('https://example.com/d', 'yesterday & <today>'),
    ]);
    assert.deepEqual(
      [...xml.matchAll(/<lastmod>(.*?)<\/lastmod>/g)].map((m) => m[1]),
      [
        '2026-01-01',
        '2026-01-02T03:04:05+02:00',
        '2026-11-20T10:00:00.000Z',
        'yesterday &amp; &lt;today&gt;',
      ],
    );
  });

  it('writes the url as the loc value as given, relative ones included', () => {
    const xml = sitemapXml([entry('/blog/a?x=1&y=2'), entry('blog/b'), entry('https://example.com/c')]);
    assert.deepEqual(
      [...xml.matchAll(/<loc>(.*?)<\/loc>/g)].map((m) => m[1]),
      ['/blog/a?x=1&amp;y=2', 'blog/b', 'https://example.com/c'],
    );
  });

  it('skips a url, and leaves out a lastmod, that only held characters XML forbids', () => {
    const xml = sitemapXml([
      { url: 'https://e.com/a', lastModified: '\ufffe' },
      { url: '\u0001', lastModified: '2026-01-01' },
    ]);
    assert.match(xml, /<url><loc>https:\/\/e\.com\/a<\/loc><\/url>/);
    assert.doesNotMatch(xml, /<lastmod><\/lastmod>|<loc><\/loc>/);
  });

  it('skips an entry with an empty url and writes no lastmod for an empty lastModified', () => {
    const xml = sitemapXml([entry('', '2026-01-01'), entry('https://example.com/ok', '')]);
    assert.equal((xml.match(/<url>/g) ?? []).length, 1);
    assert.match(xml, /\n<url><loc>https:\/\/example\.com\/ok<\/loc><\/url>\n/);
  });

  it('accepts 50,000 entries and refuses 50,001', () => {
    const entries = Array.from({ length: SITEMAP_MAX_URLS }, (_, i) => entry(`https://example.com/${i}`));
    assert.equal((sitemapXml(entries).match(/<url>/g) ?? []).length, 50_000);
    assert.throws(() => sitemapXml([...entries, entry('https://example.com/one-more')]), RangeError);
  });
});

describe('chunkSitemapEntries and sitemapIndexXml', () => {
  it('splits into chunks of 50,000 by default', () => {
    const entries = Array.from({ length: 120_001 }, (_, i) => entry(`https://example.com/${i}`));
    const chunks = chunkSitemapEntries(entries);
    assert.deepEqual(
      chunks.map((c) => c.length),
      [50_000, 50_000, 20_001],
    );
    assert.equal(chunks[1]![0]!.url, 'https://example.com/50000');
    assert.equal(chunks.flat().length, entries.length);
    assert.deepEqual(chunkSitemapEntries([]), []);
    assert.deepEqual(
      chunkSitemapEntries([1, 2, 3], 2).map((c) => c.length),
      [2, 1],
    );
    assert.throws(() => chunkSitemapEntries(entries, 0), RangeError);
    assert.throws(() => chunkSitemapEntries(entries, 50_001), RangeError);
  });

  it('lists sitemap files in an index, escaped, with optional lastmod as given', () => {
    assert.equal(
      sitemapIndexXml([
        'https://example.com/sitemap-1.xml?a=1&b=2',
        { url: 'https://example.com/sitemap-2.xml', lastModified: '2026-11-21' },
        'not a url',
      ]),
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
        '<sitemap><loc>https://example.com/sitemap-1.xml?a=1&amp;b=2</loc></sitemap>',
        '<sitemap><loc>https://example.com/sitemap-2.xml</loc><lastmod>2026-11-21</lastmod></sitemap>',
        '</sitemapindex>',
        '',
      ].join('\n'),
    );
  });
});
