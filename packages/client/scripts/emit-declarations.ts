/**
 * A small emitter from the JSON Schema objects TypeBox builds to plain TypeScript declarations.
 * It knows only the keywords @folio/schema uses and throws on any other, so a schema it cannot
 * express fails generation instead of yielding a looser type.
 */

/** A JSON Schema node; TypeBox schemas are such objects (their symbol keys are ignored). */
type SchemaNode = { readonly [key: string]: unknown };

/**
 * One declaration, written as a `type` alias. Object types stay aliases rather than interfaces,
 * as TypeBox's `Static` types are: an alias is assignable to `Record<string, unknown>`, an
 * interface is not, and the generated types must fit wherever the schema's types fit.
 */
export interface Declaration {
  name: string;
  /** One JSDoc line. */
  doc: string;
  schema: object;
}

/** What `emitDeclarations` needs besides the declarations. */
export interface EmitOptions {
  /** Nodes written as a TypeScript type instead of from their keywords, found by identity. */
  overrides?: ReadonlyMap<object, string>;
  /** Column limit of the formatter that checks the output (biome `lineWidth`). */
  lineWidth: number;
}

const KEYWORDS = new Set([
  ...['type', 'properties', 'required', 'additionalProperties', 'items', '$ref', 'const', 'enum', 'anyOf'],
  // Validation only: they narrow the values but not their TypeScript type.
  ...['description', 'pattern', 'format', 'minLength', 'maxLength', 'minimum', 'maximum', 'default'],
  ...['minItems', 'maxItems'],
]);

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

const quote = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const literal = (value: unknown) => (typeof value === 'string' ? quote(value) : String(value));
const pascal = (name: string) => name[0]!.toUpperCase() + name.slice(1);
const jsDoc = (text: string, pad: string) => `${pad}/** ${text.replace(/\*\//g, '*\\/')} */\n`;

/**
 * TypeScript declarations for `declarations`, in order, separated by blank lines. A `$ref` to
 * `#/$defs/fooBar` names the declaration `FooBar`; a node that is itself a declared schema is
 * written as its name.
 */
export function emitDeclarations(declarations: readonly Declaration[], options: EmitOptions): string {
  const names = new Map<object, string>(options.overrides);
  for (const declaration of declarations) names.set(declaration.schema, declaration.name);
  const declared = new Set(declarations.map((d) => d.name));
  const emitter = new Emitter(names, declared);
  return declarations
    .map(
      ({ name, doc, schema }) =>
        jsDoc(doc, '') + emitter.declaration(name, schema as SchemaNode, options.lineWidth),
    )
    .join('\n');
}

class Emitter {
  readonly #names: ReadonlyMap<object, string>;
  readonly #declared: ReadonlySet<string>;

  constructor(names: ReadonlyMap<object, string>, declared: ReadonlySet<string>) {
    this.#names = names;
    this.#declared = declared;
  }

  declaration(name: string, node: SchemaNode, lineWidth: number): string {
    checkKeywords(node, name);
    if (node.type === 'object' && node.properties !== undefined) {
      return `export type ${name} = ${this.#object(node, '', name)};\n`;
    }
    const members = this.#unionMembers(node, name);
    const oneLine = `export type ${name} = ${members.join(' | ')};`;
    if (oneLine.length <= lineWidth || members.length === 1) return `${oneLine}\n`;
    return `export type ${name} =\n${members.map((m) => `  | ${m}`).join('\n')};\n`;
  }

  #unionMembers(node: SchemaNode, path: string): string[] {
    if (Array.isArray(node.anyOf)) return node.anyOf.map((n, i) => this.#type(n, '', `${path}.anyOf[${i}]`));
    if (Array.isArray(node.enum)) return node.enum.map(literal);
    return [this.#expression(node, '', path)];
  }

  /** The name of a declared node, else its type written out. */
  #type(node: SchemaNode, indent: string, path: string): string {
    return this.#names.get(node) ?? this.#expression(node, indent, path);
  }

  #expression(node: SchemaNode, indent: string, path: string): string {
    checkKeywords(node, path);
    if (typeof node.$ref === 'string') return this.#ref(node.$ref, path);
    if ('const' in node) return literal(node.const);
    if (Array.isArray(node.enum) || Array.isArray(node.anyOf)) {
      return this.#unionMembers(node, path).join(' | ');
    }
    switch (node.type) {
      case 'string':
        return 'string';
      case 'integer':
      case 'number':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'null':
        return 'null';
      case 'array':
        return this.#array(node, indent, path);
      case 'object':
        if (node.properties !== undefined) return this.#object(node, indent, path);
        if (node.additionalProperties === true) return 'Record<string, unknown>';
    }
    throw new Error(`${path}: cannot write ${JSON.stringify(node)} as a TypeScript type`);
  }

  #array(node: SchemaNode, indent: string, path: string): string {
    const items = node.items as SchemaNode;
    const item = this.#type(items, indent, `${path}.items`);
    const isUnion =
      !this.#names.has(items) &&
      ((Array.isArray(items.enum) && items.enum.length > 1) || Array.isArray(items.anyOf));
    return isUnion ? `(${item})[]` : `${item}[]`;
  }

  #object(node: SchemaNode, indent: string, path: string): string {
    if (typeof node.additionalProperties === 'object') {
      throw new Error(`${path}: additionalProperties with a schema is not supported`);
    }
    const required = new Set((node.required as string[] | undefined) ?? []);
    const pad = `${indent}  `;
    const lines = Object.entries(node.properties as Record<string, SchemaNode>).map(([key, property]) => {
      const doc = typeof property.description === 'string' ? jsDoc(property.description, pad) : '';
      const optional = required.has(key) ? '' : '?';
      const type = this.#type(property, pad, `${path}.${key}`);
      return `${doc}${pad}${IDENTIFIER.test(key) ? key : quote(key)}${optional}: ${type};\n`;
    });
    return `{\n${lines.join('')}${indent}}`;
  }

  #ref(ref: string, path: string): string {
    const match = /^#\/\$defs\/([A-Za-z0-9_]+)$/.exec(ref);
    const name = match ? pascal(match[1]!) : undefined;
    if (name === undefined || !this.#declared.has(name)) {
      throw new Error(`${path}: $ref ${ref} names no declaration`);
    }
    return name;
  }
}

function checkKeywords(node: SchemaNode, path: string): void {
  for (const key of Object.keys(node)) {
    if (!KEYWORDS.has(key)) throw new Error(`${path}: the keyword "${key}" is not supported by the emitter`);
  }
}
