import type { Block } from '@folio/client';
import { z } from 'astro/zod';

const seoSchema = z.object({
  title: z.string(),
  description: z.string(),
  canonicalPath: z.string(),
  ogTitle: z.string(),
  ogDescription: z.string(),
  ogImage: z.string().nullable(),
  ogType: z.string(),
  jsonLd: z.record(z.string(), z.unknown()),
});

/**
 * The schema of a Folio collection entry: the article as the changes feed serves it, dates as
 * `Date`, and `head`, the article page's head tags from `renderHead`. The loader sets it for you;
 * extend it (`folioArticleSchema.extend({...})`) only to add fields of your own.
 * @example
 * import { folioArticleSchema } from '@folio/astro';
 * type Post = z.infer<typeof folioArticleSchema>; // { id, slug, title, blocks, seo, publishedAt: Date, … }
 */
export const folioArticleSchema = z.object({
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  // Typed, not checked block by block: a block type newer than this package must not fail the
  // build, and renderBlocks already skips what it cannot render.
  blocks: z.array(z.custom<Block>((value) => typeof value === 'object' && value !== null)),
  seo: seoSchema,
  publishedAt: z.coerce.date(),
  updatedAt: z.coerce.date(),
  head: z.string(),
});

/** The data of one entry of a Folio collection, as `getEntry` and `getCollection` give it. */
export type FolioArticleData = z.infer<typeof folioArticleSchema>;
