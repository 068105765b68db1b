import { keyOfToken, pointerToken } from './json-pointer.ts';

type Node = Record<string, unknown>;

/** A schema with its references resolved, and where in a shared document each part came from. */
export interface InlinedSchema {
  root: object;
  /** `id#/json/pointer` of each node copied from a shared document, to compile it by reference. */
  locations: WeakMap<object, string>;
}

/**
 * A copy of `schema` with every `$ref` replaced by the schema it points to, in the schema itself or
 * in one of `shared` (by `$id`, with an optional `#/json/pointer`), so a walk can follow it. A
 * target reached twice is the same object. Returns undefined when a reference is recursive,
 * dynamic or cannot be resolved.
 */
export function inlineRefs(schema: object, shared: object[]): InlinedSchema | undefined {
  const documents = new Map<string, Node>();
  for (const document of shared) {
    const id = (document as Node).$id;
    if (typeof id === 'string') documents.set(id, document as Node);
  }
  const resolved = new Map<Node, Node>();
  const open = new Set<Node>();
  const locations = new WeakMap<object, string>();
  const at = (location: string | undefined, key: string | number) =>
    location && `${location}/${pointerToken(String(key))}`;

  const inline = (node: unknown, root: Node, location: string | undefined): unknown => {
    if (Array.isArray(node)) return node.map((item, index) => inline(item, root, at(location, index)));
    if (typeof node !== 'object' || node === null) return node;
    const object = node as Node;
    if ('$dynamicRef' in object || '$anchor' in object || '$dynamicAnchor' in object) throw new Unsupported();
    if (typeof object.$ref === 'string') {
      const [target, targetRoot, targetLocation] = findTarget(object.$ref, root, documents);
      const done = resolved.get(target);
      if (done) return done;
      if (open.has(target)) throw new Unsupported();
      open.add(target);
      const copy = inline(target, targetRoot, targetLocation) as Node;
      open.delete(target);
      resolved.set(target, copy);
      const { $ref: _, ...siblings } = object;
      return Object.keys(siblings).length === 0
        ? copy
        : { allOf: [copy], ...(inline(siblings, root, undefined) as Node) };
    }
    const copy: Node = {};
    if (location) locations.set(copy, location);
    for (const [key, value] of Object.entries(object)) {
      // Every reference is resolved, and a nested `$id` would clash when subschemas compile apart.
      if (key === '$defs' || key === 'definitions' || key === '$id' || key === '$schema') continue;
      copy[key] = inline(value, root, at(location, key));
    }
    return copy;
  };

  try {
    const id = (schema as Node).$id;
    const root = inline(schema, schema as Node, typeof id === 'string' ? `${id}#` : undefined) as object;
    return { root, locations };
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
}

class Unsupported extends Error {}

function findTarget(ref: string, root: Node, documents: Map<string, Node>): [Node, Node, string | undefined] {
  const hash = ref.indexOf('#');
  const base = hash === -1 ? ref : ref.slice(0, hash);
  const pointer = hash === -1 ? '' : ref.slice(hash + 1);
  const document = base === '' ? root : documents.get(base);
  if (!document || (pointer !== '' && !pointer.startsWith('/'))) throw new Unsupported();
  let target: unknown = document;
  for (const token of pointer.split('/').slice(1)) {
    const key = keyOfToken(decodeURIComponent(token));
    target = (target as Node | undefined)?.[key];
  }
  if (typeof target !== 'object' || target === null) throw new Unsupported();
  const id = document.$id;
  return [target as Node, document, typeof id === 'string' ? `${id}#${pointer}` : undefined];
}
