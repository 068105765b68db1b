import { getCollection } from 'astro:content';
import type { FolioArticleData } from '@folio/astro';

/** Every article of the collection, as the loader stored it. */
export async function allArticles(): Promise<{ data: FolioArticleData; rendered?: { html: string } }[]> {
  return getCollection('articles');
}
