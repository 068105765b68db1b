import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { HTTP_URL_PATTERN, LINK_PATTERN, SOURCE_URL_PATTERN } from './links.ts';

/**
 * The block format, defined once. The TypeScript types below and the served JSON Schema
 * (`blocksJsonSchema`) both come from these definitions; the server validates ingested
 * articles with that same JSON Schema.
 */

/** A reference to a named definition of the served document, typed as that definition. */
function ref<T extends TSchema>(name: string): TSchema & { static: Static<T> } {
  return Type.Unsafe<Static<T>>({ $ref: `#/$defs/${name}` }) as TSchema & { static: Static<T> };
}

const closed = { additionalProperties: false } as const;
const blockId = Type.Optional(Type.String({ description: 'Optional identifier of the block' }));

export const TextRunSchema = Type.Object(
  {
    text: Type.String(),
    bold: Type.Optional(Type.Boolean()),
    italic: Type.Optional(Type.Boolean()),
    code: Type.Optional(Type.Boolean()),
    href: Type.Optional(
      Type.String({
        pattern: LINK_PATTERN,
        description: 'An http(s) URL, a site path (/…, not //…) or a #anchor',
      }),
    ),
    rel: Type.Optional(Type.String({ maxLength: 80 })),
  },
  { ...closed, description: 'A run of text with optional marks and link' },
);
/** A run of text with optional marks and link. */
export type TextRun = Static<typeof TextRunSchema>;

const textRuns = () => Type.Array(ref<typeof TextRunSchema>('textRun'));

export const HeadingBlockSchema = Type.Object(
  {
    type: Type.Literal('heading'),
    id: blockId,
    level: Type.Unsafe<2 | 3 | 4>({ type: 'integer', enum: [2, 3, 4] }),
    text: Type.String(),
  },
  closed,
);
export const ParagraphBlockSchema = Type.Object(
  { type: Type.Literal('paragraph'), id: blockId, content: textRuns() },
  closed,
);
export const ListBlockSchema = Type.Object(
  { type: Type.Literal('list'), id: blockId, ordered: Type.Boolean(), items: Type.Array(textRuns()) },
  closed,
);
export const QuoteBlockSchema = Type.Object(
  {
    type: Type.Literal('quote'),
    id: blockId,
    content: textRuns(),
    attribution: Type.Optional(Type.String()),
  },
  closed,
);
export const CodeBlockSchema = Type.Object(
  { type: Type.Literal('code'), id: blockId, code: Type.String(), language: Type.Optional(Type.String()) },
  closed,
);
/** The largest `width` or `height` an image block may give: larger than any screen draws. */
export const IMAGE_SIDE_MAX = 10_000;

// Both sides together give the browser the image's aspect ratio, so it reserves the space before
// the image loads and the text below does not jump (Cumulative Layout Shift).
const imageSide = (side: 'width' | 'height') =>
  Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: IMAGE_SIDE_MAX,
      description: `The image's ${side} in pixels; give width and height together`,
    }),
  );

export const ImageBlockSchema = Type.Object(
  {
    type: Type.Literal('image'),
    id: blockId,
    url: Type.String({ pattern: SOURCE_URL_PATTERN, description: 'An http(s) URL or a site path' }),
    alt: Type.String(),
    caption: Type.Optional(Type.String()),
    width: imageSide('width'),
    height: imageSide('height'),
  },
  closed,
);
export const CalloutBlockSchema = Type.Object(
  {
    type: Type.Literal('callout'),
    id: blockId,
    variant: Type.Unsafe<'info' | 'tip' | 'warning'>({ type: 'string', enum: ['info', 'tip', 'warning'] }),
    content: textRuns(),
  },
  closed,
);
export const CtaBlockSchema = Type.Object(
  {
    type: Type.Literal('cta'),
    id: blockId,
    heading: Type.String(),
    buttonLabel: Type.String(),
    buttonHref: Type.String({
      pattern: LINK_PATTERN,
      description: 'An http(s) URL, a site path (/…, not //…) or a #anchor',
    }),
    body: Type.Optional(Type.String()),
  },
  closed,
);
export const FaqItemSchema = Type.Object({ question: Type.String(), answer: textRuns() }, closed);
export const FaqBlockSchema = Type.Object(
  { type: Type.Literal('faq'), id: blockId, items: Type.Array(ref<typeof FaqItemSchema>('faqItem')) },
  closed,
);
export const TableBlockSchema = Type.Object(
  {
    type: Type.Literal('table'),
    id: blockId,
    headers: Type.Array(Type.String()),
    rows: Type.Array(Type.Array(Type.String())),
  },
  closed,
);
export const VideoBlockSchema = Type.Object(
  {
    type: Type.Literal('video'),
    id: blockId,
    provider: Type.Literal('youtube'),
    videoId: Type.String({ pattern: '^[A-Za-z0-9_-]{11}$' }),
    url: Type.String({ pattern: HTTP_URL_PATTERN, description: 'An http(s) URL' }),
    title: Type.String(),
  },
  closed,
);

/** Every block definition by its `type` value, in the seed's order. */
export const BLOCK_SCHEMAS = {
  heading: HeadingBlockSchema,
  paragraph: ParagraphBlockSchema,
  list: ListBlockSchema,
  quote: QuoteBlockSchema,
  code: CodeBlockSchema,
  image: ImageBlockSchema,
  callout: CalloutBlockSchema,
  cta: CtaBlockSchema,
  faq: FaqBlockSchema,
  table: TableBlockSchema,
  video: VideoBlockSchema,
} as const;

/** The `type` values of all block kinds. */
export type BlockType = keyof typeof BLOCK_SCHEMAS;
/** The `type` values of all block kinds, in the seed's order. */
export const BLOCK_TYPES = Object.keys(BLOCK_SCHEMAS) as BlockType[];

export type HeadingBlock = Static<typeof HeadingBlockSchema>;
export type ParagraphBlock = Static<typeof ParagraphBlockSchema>;
export type ListBlock = Static<typeof ListBlockSchema>;
export type QuoteBlock = Static<typeof QuoteBlockSchema>;
export type CodeBlock = Static<typeof CodeBlockSchema>;
export type ImageBlock = Static<typeof ImageBlockSchema>;
export type CalloutBlock = Static<typeof CalloutBlockSchema>;
export type CtaBlock = Static<typeof CtaBlockSchema>;
export type FaqItem = Static<typeof FaqItemSchema>;
export type FaqBlock = Static<typeof FaqBlockSchema>;
export type TableBlock = Static<typeof TableBlockSchema>;
export type VideoBlock = Static<typeof VideoBlockSchema>;
/** One element of an article's `blocks` array. */
export type Block = { [K in BlockType]: Static<(typeof BLOCK_SCHEMAS)[K]> }[BlockType];

/** The `blocks` array of an article, typed; validated against the served document. */
export const BlocksSchema = Type.Unsafe<Block[]>({ type: 'array', items: { $ref: '#/$defs/block' } });
