// @ts-check
import { defineConfig, passthroughImageService } from 'astro/config';

// The site's own origin: canonical URLs, head tags and the sitemap are built from it.
const site = process.env.SITE_ORIGIN ?? 'http://localhost:4321';

/**
 * Inside the Folio repository, reads the workspace packages (@folio/astro, @folio/client) from
 * their TypeScript sources rather than a build of them; a site elsewhere can leave it out.
 * @type {import('vite').Plugin}
 */
const folioSources = {
  name: 'folio-sources',
  configEnvironment(_name, config) {
    config.resolve?.conditions?.push('folio-source');
  },
};

export default defineConfig({
  site,
  // The content store, with the Folio loader's cursor, lives in the cache directory: keep it
  // between builds (your host's build cache) and each build fetches only what changed.
  cacheDir: process.env.ASTRO_CACHE_DIR ?? './node_modules/.astro',
  // No image optimisation: Folio serves image URLs as given, and the default service needs sharp.
  image: { service: passthroughImageService() },
  vite: { plugins: [folioSources] },
});
