import { canonicalUrl, sitemapXml } from '@folio/client';
import type { APIRoute } from 'astro';
import { allArticles } from '../lib/articles.ts';

/** The sitemap of every article, from the collection: no request to Folio of its own. */
export const GET: APIRoute = async ({ site }) => {
  const origin = site!.href;
  const entries = (await allArticles()).map(({ data }) => ({
    url: canonicalUrl(origin, data.seo.canonicalPath),
    lastModified: data.updatedAt.toISOString(),
  }));
  return new Response(sitemapXml(entries), { headers: { 'content-type': 'application/xml; charset=utf-8' } });
};
