import { getCollection } from 'astro:content';
import type { FolioArticleData } from '@folio/astro';
import { unpageable } from './listing.ts';

type Entry = { data: FolioArticleData; rendered?: { html: string } };

// Each left-out article is named once per build, not once per page that lists articles.
const named = new Set<string>();

/**
 * Every article of the collection that can be a page, as the loader stored it: the article
 * pages, the index and the sitemap all list the same ones.
 */
export async function allArticles(): Promise<Entry[]> {
  const entries: Entry[] = await getCollection('articles');
  return entries.filter((entry) => {
    const why = unpageable(entry.data);
    if (why && !named.has(entry.data.id)) {
      named.add(entry.data.id);
      console.warn(`[folio] article ${entry.data.id} (/${entry.data.slug}) has no page: ${why}.`);
    }
    return why === undefined;
  });
}
