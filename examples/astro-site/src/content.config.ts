import { defineCollection } from 'astro:content';
import { folioLoader } from '@folio/astro';

// Every article of the project, kept in step with Folio's changes feed: a build asks only for
// what changed since the last one. The key comes from the build's environment, never the source.
const articles = defineCollection({
  loader: folioLoader({
    baseUrl: import.meta.env.FOLIO_URL,
    projectId: import.meta.env.FOLIO_PROJECT_ID,
    contentKey: import.meta.env.FOLIO_CONTENT_KEY,
    siteName: 'Folio on Astro',
  }),
});

export const collections = { articles };
