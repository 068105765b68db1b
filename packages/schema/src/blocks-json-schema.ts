import { BLOCK_SCHEMAS, BLOCK_TYPES, FaqItemSchema, TextRunSchema } from './blocks.ts';

/** Path of the served block schema, relative to the base URL. */
export const BLOCKS_SCHEMA_PATH = '/public/v1/schema/blocks.json';

/** A JSON Schema document (draft 2020-12). */
export type JsonSchemaDocument = Record<string, unknown> & { $id: string; $schema: string };

/** Strips TypeBox's symbol-keyed metadata so the document is plain JSON. */
function plain(schema: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

/**
 * The JSON Schema (draft 2020-12) of an article's `blocks` array, with `$id` on `baseUrl`.
 * Each block is checked against the definition its `type` selects, so a validator reports the
 * problem in that block rather than one failure per block kind.
 * @example
 * const schema = blocksJsonSchema('https://folio.example.com');
 * schema.$id; // 'https://folio.example.com/public/v1/schema/blocks.json'
 */
export function blocksJsonSchema(baseUrl: string): JsonSchemaDocument {
  const defs: Record<string, unknown> = {
    textRun: plain(TextRunSchema),
    faqItem: plain(FaqItemSchema),
    block: {
      type: 'object',
      description: 'One block; `type` selects its definition',
      required: ['type'],
      properties: { type: { type: 'string', enum: BLOCK_TYPES } },
      allOf: BLOCK_TYPES.map((type) => ({
        if: { properties: { type: { const: type } }, required: ['type'] },
        // biome-ignore lint/suspicious/noThenProperty: JSON Schema keyword
        then: { $ref: `#/$defs/${type}Block` },
      })),
    },
  };
  for (const type of BLOCK_TYPES) defs[`${type}Block`] = plain(BLOCK_SCHEMAS[type]);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${baseUrl.replace(/\/+$/, '')}${BLOCKS_SCHEMA_PATH}`,
    title: 'Folio article blocks',
    description: 'The `blocks` array of a Folio article',
    type: 'array',
    items: { $ref: '#/$defs/block' },
    $defs: defs,
  };
}
