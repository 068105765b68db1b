import type { ErrorObject } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { DataValidationCxt } from 'ajv/dist/types/index.js';
import type { InlinedSchema } from './inline-refs.ts';
import { pointerToken } from './json-pointer.ts';

type Node = Record<string, unknown>;
/** Ajv's validate function, without its type guard: a refused value keeps its type. */
type Check = ((data: unknown, context?: DataValidationCxt) => boolean) & { errors?: ErrorObject[] | null };

/** Where a refused value's errors go; `add` answers false once no more are wanted. */
export interface ErrorSink {
  add(error: ErrorObject): boolean;
}

/** A value with at most this many JSON values in it is checked for all its errors in one Ajv pass. */
export const SMALL_VALUE = 1000;

/** Applicators the walk below does not follow: a schema with one is checked in one pass. */
const OPAQUE = [
  'anyOf',
  'oneOf',
  'not',
  'prefixItems',
  'contains',
  'patternProperties',
  'propertyNames',
  'dependentSchemas',
  'unevaluatedProperties',
  'unevaluatedItems',
  '$ref',
];

/**
 * Checks values against `schema` (references inlined) and, for a refused one, hands its errors to
 * a sink, stopping when the sink has enough: a small value (or an unsplittable schema) gets one
 * `allErrors` pass, exactly Ajv's errors in Ajv's order; a large one is walked along the schema's
 * `properties`, `items`, `allOf` and `if`/`then`/`else`, each part first checked fail-fast, so
 * valid parts cost one fast pass and only the first invalid ones are examined in full.
 */
export function createBoundedChecker(
  original: object,
  { root: schema, locations }: InlinedSchema,
  ajv: { failFast: Ajv2020; thorough: Ajv2020 },
) {
  // A part of a shared document compiles by reference: Ajv compiles that document's parts once
  // and shares them, where compiling inlined copies would repeat the work at every level.
  const source = (node: unknown) => {
    if (node === schema) return original;
    const location = typeof node === 'object' && node !== null ? locations.get(node) : undefined;
    return location ? { $ref: location } : (node as object);
  };
  const compiled = new Map<unknown, { fast: Check; all?: Check; own?: Check }>();
  const validators = (node: unknown) => {
    let entry = compiled.get(node);
    if (!entry) {
      entry = { fast: ajv.failFast.compile(source(node)) };
      compiled.set(node, entry);
    }
    return entry;
  };
  const all = (node: unknown) => {
    const entry = validators(node);
    entry.all ??= ajv.thorough.compile(source(node));
    return entry.all;
  };
  const own = (node: Node) => {
    const entry = validators(node);
    entry.own ??= ajv.thorough.compile(ownKeywords(node));
    return entry.own;
  };

  /** Feeds `data`'s errors to `sink`; false once the sink wants no more. */
  const walk = (node: unknown, data: unknown, at: Place, sink: ErrorSink): boolean => {
    if (validators(node).fast(data)) return true;
    if (!isObject(node) || !splittable(node) || isSmall(data)) return pass(all(node), data, at, sink);
    if (!pass(own(node), data, at, sink)) return false;
    if (Array.isArray(data) && isObject(node.items)) {
      for (const [index, item] of data.entries()) {
        const place = { ...at, instancePath: `${at.instancePath}/${index}`, index, parent: data };
        if (!walk(node.items, item, place, sink)) return false;
      }
    }
    if (isObject(data) && isObject(node.properties)) {
      for (const [name, property] of Object.entries(node.properties)) {
        if (data[name] === undefined) continue;
        const path = `${at.instancePath}/${pointerToken(name)}`;
        if (!walk(property, data[name], { ...at, instancePath: path, index: name, parent: data }, sink))
          return false;
      }
    }
    for (const part of Array.isArray(node.allOf) ? node.allOf : []) {
      if (!walk(part, data, at, sink)) return false;
    }
    if (isObject(node.if)) {
      const branch = validators(node.if).fast(data) ? node.then : node.else;
      if (branch !== undefined && !walk(branch, data, at, sink)) return false;
    }
    return true;
  };

  /** Compiles every part a refused body could need, so that no request pays for it. */
  const warm = (node: unknown): void => {
    all(node);
    if (!isObject(node) || !splittable(node)) return;
    own(node);
    if (isObject(node.items)) warm(node.items);
    if (isObject(node.properties)) for (const property of Object.values(node.properties)) warm(property);
    for (const part of Array.isArray(node.allOf) ? node.allOf : []) warm(part);
    if (isObject(node.if)) {
      validators(node.if);
      for (const branch of [node.then, node.else]) if (branch !== undefined) warm(branch);
    }
  };

  validators(schema);
  return {
    /** Compiles the validators of every part now; otherwise the first refused body does. */
    warm: () => warm(schema),
    /** True when `data` is valid; fail-fast, so a valid value pays one pass and nothing more. */
    isValid: (data: unknown): boolean => validators(schema).fast(data) as boolean,
    /** Feeds a refused value's errors to `sink` until it has enough. */
    collect(data: unknown, sink: ErrorSink): void {
      walk(schema, data, { instancePath: '', index: undefined, parent: undefined, root: data }, sink);
    },
  };
}

interface Place {
  instancePath: string;
  index: string | number | undefined;
  parent: unknown;
  root: unknown;
}

/** Runs one validator over `data` where it sits, feeding its errors to the sink. */
function pass(validate: Check, data: unknown, at: Place, sink: ErrorSink): boolean {
  const context = {
    instancePath: at.instancePath,
    parentData: at.parent as Node,
    parentDataProperty: at.index as string,
    rootData: at.root as Node,
    dynamicAnchors: {},
  };
  if (validate(data, at.parent === undefined ? undefined : context)) return true;
  for (const error of validate.errors ?? []) if (!sink.add(error)) return false;
  return true;
}

function splittable(schema: Node): boolean {
  if (OPAQUE.some((keyword) => keyword in schema)) return false;
  if (isObject(schema.additionalProperties)) return false;
  return (
    isObject(schema.properties) ||
    isObject(schema.items) ||
    Array.isArray(schema.allOf) ||
    isObject(schema.if)
  );
}

/** The schema's own checks, without those of the parts the walk visits one by one. */
function ownKeywords(schema: Node): Node {
  const rest = { ...schema };
  if (isObject(schema.items)) delete rest.items;
  if (Array.isArray(schema.allOf)) delete rest.allOf;
  if (isObject(schema.if)) {
    delete rest.if;
    delete rest.then;
    delete rest.else;
  }
  // `additionalProperties: false` still needs to know which names are declared.
  if (isObject(schema.properties)) {
    rest.properties = Object.fromEntries(Object.keys(schema.properties).map((name) => [name, true]));
  }
  return rest;
}

/** Whether `data` holds at most SMALL_VALUE values; stops counting there. */
function isSmall(data: unknown): boolean {
  let budget = SMALL_VALUE;
  const stack: unknown[] = [data];
  while (stack.length > 0) {
    const value = stack.pop();
    if (--budget < 0) return false;
    if (typeof value !== 'object' || value === null) continue;
    for (const child of Array.isArray(value) ? value : Object.values(value)) {
      if (stack.push(child) > budget) return false;
    }
  }
  return true;
}

function isObject(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
