import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FolioArticleData } from '@folio/astro';
import { articleParam, indexPage, PAGE_SIZE, unpageable } from './listing.ts';

const article = (n: number): FolioArticleData =>
  ({ id: `a${n}`, publishedAt: new Date(Date.UTC(2026, 0, n)) }) as FolioArticleData;
const articles = (count: number) => Array.from({ length: count }, (_, i) => article(i + 1));

describe('index pages', () => {
  test('newest first, PAGE_SIZE a page, with links to the neighbours', () => {
    const all = articles(PAGE_SIZE + 1);
    const first = indexPage(all, 1)!;
    assert.deepEqual(
      first.articles.map((a) => a.id),
      all
        .slice(1)
        .reverse()
        .map((a) => a.id),
    );
    assert.deepEqual([first.prev, first.next, first.totalPages], [undefined, '/page/2', 2]);
    const second = indexPage(all, 2)!;
    assert.deepEqual(second.articles, [all[0]]);
    assert.deepEqual([second.prev, second.next], ['/', undefined]);
    assert.equal(indexPage(all, 3), undefined);
  });

  test('no articles: one empty page, and nothing past it', () => {
    assert.deepEqual(indexPage([], 1), { articles: [], page: 1, totalPages: 1 });
    assert.equal(indexPage([], 2), undefined);
    assert.equal(indexPage(articles(PAGE_SIZE), 2), undefined);
  });
});

test('an article whose slug cannot be a file or an Astro path is named, not built', () => {
  const at = (canonicalPath: string) => ({ id: 'a1', seo: { canonicalPath } }) as FolioArticleData;
  assert.equal(unpageable(at('/blog/caf%C3%A9')), undefined);
  assert.match(unpageable(at('/blog/back%5Cslash'))!, /backslash/);
  assert.match(unpageable(at(`/blog/${encodeURIComponent('日'.repeat(100))}`))!, /300 bytes/);
  assert.equal(unpageable(at(`/blog/${encodeURIComponent('日'.repeat(85))}`)), undefined);
});

test('an article page lives at its canonical path, decoded once for Astro', () => {
  assert.equal(articleParam({ seo: { canonicalPath: '/blog/caf%C3%A9' } } as FolioArticleData), 'blog/café');
  assert.equal(articleParam({ seo: { canonicalPath: '/hello' } } as FolioArticleData), 'hello');
});
