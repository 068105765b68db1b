import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { demoArticles } from '../../../packages/server/src/content/demo-articles.ts';
import { firstParagraphSummary } from '../../../packages/server/src/services/article-view.ts';
import { excerpt } from './excerpt.ts';

const ENDS_WELL = /(?:[.!?]["'”’)\]]*|…)$/u;

describe('excerpt', () => {
  test('keeps a description that ends a sentence', () => {
    for (const text of ['Short.', 'Is it fast?', 'It is!', 'He said “stop.”', 'Cached (for a day.)']) {
      assert.equal(excerpt(text), text);
    }
    assert.equal(excerpt('  Spaced out.  '), 'Spaced out.');
  });

  test('ends at the last whole sentence when that keeps enough of the text', () => {
    assert.equal(
      excerpt(
        'Cumulative Layout Shift is about discipline. Almost every layout shift we see comes from content',
      ),
      'Cumulative Layout Shift is about discipline.',
    );
    assert.equal(excerpt('Is it “fast?” We measured it on a phone'), 'Is it “fast?”');
  });

  test('adds an ellipsis when no sentence ends, or the first one is too short', () => {
    assert.equal(
      excerpt('On two thirds of the sites we audit, the LCP element is the hero image at the top of the'),
      'On two thirds of the sites we audit, the LCP element is the hero image at the top of the…',
    );
    assert.equal(
      excerpt('Hi. This description was cut by Folio at a word'),
      'Hi. This description was cut by Folio at a word…',
    );
    assert.equal(excerpt('Chat widgets, tag managers,'), 'Chat widgets, tag managers…');
    assert.equal(
      excerpt('LCP went from 3.9 s to 2.6 s at the 75th'),
      'LCP went from 3.9 s to 2.6 s at the 75th…',
    );
  });

  test('leaves an empty description empty', () => {
    assert.equal(excerpt(''), '');
    assert.equal(excerpt('   '), '');
  });

  test('every demo article gets an excerpt that ends at a sentence or with an ellipsis', () => {
    for (const article of demoArticles) {
      const description = article.seo?.description ?? firstParagraphSummary(article.blocks);
      const text = excerpt(description);
      assert.match(text, ENDS_WELL, `${article.slug}: ${text}`);
      assert.ok(text.length >= 40, `${article.slug}: too short: ${text}`);
      assert.ok(description.trim().startsWith(text.replace(/…$/, '')), `${article.slug}: ${text}`);
    }
  });
});
