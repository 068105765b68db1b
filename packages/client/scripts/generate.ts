/**
 * Writes src/generated/ from @folio/schema, so the published client carries the block format's
 * types and link rules without depending on TypeBox or Ajv at run time. Run it with
 * `npm run generate -w @folio/client` after changing packages/schema; a test fails while the
 * checked-in files are stale.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import {
  ArticleListItemSchema,
  ArticleSchema,
  ArticleStatusSchema,
  BLOCK_SCHEMAS,
  BLOCK_TYPES,
  ChangeDeleteSchema,
  ChangeSchema,
  ChangesPageSchema,
  ChangeUpsertSchema,
  ErrorBodySchema,
  ErrorCodeSchema,
  FaqItemSchema,
  KeyKindSchema,
  PaginationSchema,
  PreviewArticleSchema,
  PreviewChangesPageSchema,
  PreviewListItemSchema,
  RelatedLinkSchema,
  SeoSchema,
  SitemapEntrySchema,
  TextRunSchema,
  WebhookEventNameSchema,
} from '@folio/schema';
import { type Declaration, emitDeclarations } from './emit-declarations.ts';

const HEADER = [
  '// Generated from @folio/schema by packages/client/scripts/generate.ts: do not edit.',
  '// Regenerate with `npm run generate -w @folio/client`.',
  '',
].join('\n');

/** The biome `lineWidth` the generated files are checked against. */
const LINE_WIDTH = 110;

const blockName = (type: string) => `${type[0]!.toUpperCase()}${type.slice(1)}Block`;

const declarations: Declaration[] = [
  { name: 'TextRun', doc: 'A run of text with optional marks and link.', schema: TextRunSchema },
  { name: 'FaqItem', doc: 'One question and answer of a `faq` block.', schema: FaqItemSchema },
  ...BLOCK_TYPES.map((type) => ({
    name: blockName(type),
    doc: `The \`${type}\` block.`,
    schema: BLOCK_SCHEMAS[type],
  })),
  {
    name: 'BlockType',
    doc: 'The `type` values of all block kinds.',
    schema: { type: 'string', enum: BLOCK_TYPES },
  },
  {
    name: 'Block',
    doc: "One element of an article's `blocks` array.",
    schema: { anyOf: BLOCK_TYPES.map((type) => BLOCK_SCHEMAS[type]) },
  },
  { name: 'Seo', doc: 'The `seo` object of a served article.', schema: SeoSchema },
  { name: 'RelatedLink', doc: "One item of an article's `related` list.", schema: RelatedLinkSchema },
  {
    name: 'ArticleListItem',
    doc: 'An article as the list endpoint serves it (no `related`).',
    schema: ArticleListItemSchema,
  },
  { name: 'Article', doc: 'An article as the single-article read serves it.', schema: ArticleSchema },
  { name: 'Pagination', doc: 'The pagination object of a list answer.', schema: PaginationSchema },
  { name: 'SitemapEntry', doc: 'One sitemap entry.', schema: SitemapEntrySchema },
  { name: 'ErrorCode', doc: 'An `error.code` of the API.', schema: ErrorCodeSchema },
  {
    name: 'WebhookEventName',
    doc: 'An event name Folio sends to a webhook.',
    schema: WebhookEventNameSchema,
  },
  { name: 'ErrorBody', doc: 'Every error answer of the API.', schema: ErrorBodySchema },
  {
    name: 'ChangeUpsert',
    doc: 'A change that stores `article` in the replica, replacing any with its `id`.',
    schema: ChangeUpsertSchema,
  },
  {
    name: 'ChangeDelete',
    doc: 'A change that removes the article `id` from the replica: unpublished or deleted.',
    schema: ChangeDeleteSchema,
  },
  {
    name: 'Change',
    doc: 'One entry of the changes feed: an article to store by `id`, or one to remove by `id`.',
    schema: ChangeSchema,
  },
  { name: 'ChangesPage', doc: 'One answer of the changes feed.', schema: ChangesPageSchema },
  {
    name: 'KeyKind',
    doc: 'What a key reads: `content` (folio_ck_…) what is published, `preview` (folio_pk_…) drafts too.',
    schema: KeyKindSchema,
  },
  {
    name: 'ArticleStatus',
    doc: 'Where an article stands in the preview perspective: served as is, served with a draft, or not served.',
    schema: ArticleStatusSchema,
  },
  {
    name: 'PreviewListItem',
    doc: 'An article in the preview perspective, as a list shows it: its draft when it has one.',
    schema: PreviewListItemSchema,
  },
  {
    name: 'PreviewArticle',
    doc: 'An article in the preview perspective, as a preview key or preview token reads it by slug.',
    schema: PreviewArticleSchema,
  },
  {
    name: 'PreviewChangeUpsert',
    doc: 'A change of the preview feed that stores `article` (drafts shown) in the replica.',
    schema: previewUpsertSchema(),
  },
  {
    name: 'PreviewChange',
    doc: 'One entry of the changes feed read with a preview key.',
    schema: PreviewChangesPageSchema.properties.changes.items,
  },
  {
    name: 'PreviewChangesPage',
    doc: 'One answer of the changes feed to a preview key.',
    schema: PreviewChangesPageSchema,
  },
];

/** The upsert member of the preview feed's change union, which @folio/schema does not name. */
function previewUpsertSchema(): object {
  const upsert = PreviewChangesPageSchema.properties.changes.items.anyOf[0];
  if (upsert?.properties.type.const !== 'upsert') throw new Error('the preview feed changed shape');
  return upsert;
}

// The response schema passes served blocks through unchecked (`{ type: 'object' }` items), but
// ingest validated them against the block schema, so @folio/schema types them as `Block[]`.
const overrides = new Map<object, string>([
  [ArticleSchema.properties.blocks, 'Block[]'],
  [ArticleListItemSchema.properties.blocks, 'Block[]'],
  [PreviewListItemSchema.properties.blocks, 'Block[]'],
  [PreviewArticleSchema.properties.blocks, 'Block[]'],
]);

/** The link rules, copied verbatim: they must import nothing, or the copy would not stand alone. */
function linksSource(): string {
  const source = readFileSync(new URL('./links.ts', import.meta.resolve('@folio/schema')), 'utf8');
  if (/^\s*(?:import|export\s[^;]*\sfrom)\s/m.test(source)) {
    throw new Error('packages/schema/src/links.ts must import nothing: the client copies it verbatim');
  }
  return source;
}

/** The contents of every file of src/generated/, by file name. */
export function generatedFiles(): Record<string, string> {
  return {
    'schema.ts': `${HEADER}\n${emitDeclarations(declarations, { overrides, lineWidth: LINE_WIDTH })}`,
    'links.ts': `${HEADER}\n${linksSource()}`,
  };
}

if (import.meta.main) {
  const dir = new URL('../src/generated/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(generatedFiles())) {
    writeFileSync(new URL(file, dir), text);
    console.log(`wrote packages/client/src/generated/${file}`);
  }
}
