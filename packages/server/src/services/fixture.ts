import type { Article } from '@folio/schema';
import { fixtureArticle, fixtureRelated } from '../content/fixture-article.ts';
import { type ServedSource, type SiteSettings, toRelatedLink, toServedArticle } from './article-view.ts';

// The example is shown as it would be served for a typical site.
const EXAMPLE_SITE: SiteSettings = { website_url: 'https://www.example.com', articles_path: '/blog' };

/** The public example article: every block type, served exactly as the delivery API serves. */
export function buildFixtureArticle(): Article {
  const { id, slug, title, blocks, seo, publishedAt, updatedAt } = fixtureArticle;
  const row: ServedSource = {
    id,
    slug,
    title,
    blocks: JSON.stringify(blocks),
    seo: JSON.stringify(seo ?? {}),
    published_at: Date.parse(publishedAt),
    updated_at: Date.parse(updatedAt),
  };
  return {
    ...toServedArticle(row, EXAMPLE_SITE),
    related: fixtureRelated.map((item) => toRelatedLink(item, EXAMPLE_SITE)),
  };
}
