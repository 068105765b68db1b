import type { JsonSchemaDocument } from '@folio/schema';

/** Where the block schema lives inside the OpenAPI document. */
export const BLOCKS_COMPONENT = 'Blocks';

/**
 * Makes the generated OpenAPI document self-contained: routes validate blocks against the
 * served block schema by its absolute `$id` (so ingest and `/public/v1/schema/blocks.json` are
 * one document), which a tool reading a saved copy offline cannot follow, and which names the
 * host the copy was saved from. Here the block schema's definitions become components, and
 * every reference to it points inside the document.
 */
export function selfContained<T extends Record<string, unknown>>(
  document: T,
  blocksSchema: JsonSchemaDocument,
): T {
  const componentOf = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);
  const toComponents = (value: unknown): unknown =>
    rewriteRefs(value, (ref) => {
      if (ref === blocksSchema.$id) return `#/components/schemas/${BLOCKS_COMPONENT}`;
      const local = /^#\/\$defs\/(.+)$/.exec(ref);
      return local ? `#/components/schemas/${componentOf(local[1]!)}` : ref;
    });
  const { $defs, $schema: _schema, $id: _id, ...blocks } = blocksSchema;
  const components = (document.components ?? {}) as { schemas?: Record<string, unknown> };
  const schemas: Record<string, unknown> = { ...components.schemas };
  schemas[BLOCKS_COMPONENT] = toComponents(blocks);
  for (const [name, definition] of Object.entries(($defs ?? {}) as Record<string, unknown>)) {
    schemas[componentOf(name)] = toComponents(definition);
  }
  const rest = toComponents({ ...document, components: { ...components } }) as T;
  return { ...rest, components: { ...(rest.components as object), schemas } };
}

function rewriteRefs(value: unknown, rewrite: (ref: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, rewrite));
  if (value === null || typeof value !== 'object') return value;
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    result[key] = key === '$ref' && typeof item === 'string' ? rewrite(item) : rewriteRefs(item, rewrite);
  }
  return result;
}
