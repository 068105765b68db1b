/**
 * @folio/astro: Folio articles as an Astro content collection, kept up to date from the changes
 * feed, so a build fetches only what changed since the last one.
 */

export type { FolioLoaderOptions } from './loader.ts';
export { folioLoader } from './loader.ts';
export type { FolioArticleData } from './schema.ts';
export { folioArticleSchema } from './schema.ts';
