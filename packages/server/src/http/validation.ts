import type { ErrorObject } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FastifySchema } from 'fastify';
import type { ErrorDetail } from '../errors.ts';

// ajv-formats is CommonJS; its default export arrives as the module object under type stripping.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;

type Part = 'body' | 'querystring' | 'params' | 'headers';

/**
 * Fastify's validator compiler. Bodies are checked strictly: no type coercion and no silent
 * removal of unknown fields, so a typo is an error that names the field. Query strings and path
 * parameters are text, so they are coerced to the declared types.
 */
export function createValidatorCompiler(sharedSchemas: object[]) {
  const options = { allErrors: true, verbose: true, strict: false, useDefaults: true } as const;
  const strict = addFormats(new Ajv2020({ ...options, coerceTypes: false }));
  const coercing = addFormats(new Ajv2020({ ...options, coerceTypes: 'array' }));
  for (const schema of sharedSchemas) {
    strict.addSchema(schema);
    coercing.addSchema(schema);
  }
  return ({ schema, httpPart }: { schema: FastifySchema; httpPart?: string }) => {
    if (httpPart === 'body') return strict.compile(schema as object);
    const validate = coercing.compile(schema as object);
    return httpPart === 'querystring' ? decimalIntegers(validate, schema) : validate;
  };
}

type Validator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/**
 * Coercion reads a number the way JavaScript does: `1e1` as 10, `0x10` as 16, ` 1` as 1. A
 * whole number in a query string is decimal digits (a minus allowed, for the minimum to
 * report), so anything else is refused as "must be integer" before coercion.
 */
function decimalIntegers(validate: Validator, schema: FastifySchema): Validator {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  const integers = Object.keys(properties).filter((name) => properties[name]!.type === 'integer');
  if (integers.length === 0) return validate;
  const checked: Validator = (data) => {
    const query = data as Record<string, unknown> | null;
    const wrong = integers.filter((name) => {
      const value = query?.[name];
      return typeof value === 'string' && !/^-?[0-9]+$/.test(value);
    });
    if (wrong.length > 0) {
      checked.errors = wrong.map((name) => ({
        keyword: 'type',
        instancePath: `/${name}`,
        schemaPath: `#/properties/${name}/type`,
        params: { type: 'integer' },
        message: 'must be integer',
      }));
      return false;
    }
    const valid = validate(data);
    checked.errors = validate.errors;
    return valid;
  };
  return checked;
}

/** Turns Ajv's errors into the contract's `details`: a JSON Pointer and a sentence each. */
export function describeValidationErrors(errors: ErrorObject[]): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    const detail = describe(error);
    const key = detail && `${detail.path}\u0000${detail.message}`;
    if (!detail || seen.has(key!)) continue;
    seen.add(key!);
    details.push(detail);
  }
  return details;
}

function describe(error: ErrorObject): ErrorDetail | undefined {
  const path = error.instancePath;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'if':
      return undefined; // the failing branch reports the real problem
    case 'additionalProperties': {
      const field = String(params.additionalProperty);
      if (path === '/seo' && field === 'canonicalPath') {
        return {
          path: '/seo/canonicalPath',
          message: 'is derived from the articles path and the slug; it cannot be set',
        };
      }
      return { path: `${path}/${escapePointer(field)}`, message: 'is not a known field' };
    }
    case 'required':
      return { path: `${path}/${escapePointer(String(params.missingProperty))}`, message: 'is required' };
    case 'pattern': {
      const description = (error.parentSchema as { description?: string } | undefined)?.description;
      return {
        path: path || '/',
        message: description ? `must be ${lowerFirst(description)}` : error.message!,
      };
    }
    case 'enum':
      return {
        path: path || '/',
        message: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      };
    case 'const':
      return { path: path || '/', message: `must be ${JSON.stringify(params.allowedValue)}` };
    default:
      return { path: path || '/', message: error.message ?? 'is not valid' };
  }
}

/** One sentence for the error's `message`: the first problem and how many more there are. */
/** Enough to fix a body; a hostile one with thousands of problems gets a bounded answer. */
export const MAX_DETAILS = 100;

export function summarizeDetails(part: Part, details: ErrorDetail[]): string {
  const what = part === 'body' ? 'request body' : part === 'querystring' ? 'query string' : 'request';
  const first = details[0];
  if (!first) return `The ${what} is not valid.`;
  const field = first.path === '/' ? '' : `${first.path.replace(/^\//, '')} `;
  const more =
    details.length > 1 ? ` (and ${details.length - 1} more problem${details.length > 2 ? 's' : ''})` : '';
  return `The ${what} is not valid: ${field}${first.message}${more}.`;
}

function escapePointer(field: string): string {
  return field.replace(/~/g, '~0').replace(/\//g, '~1');
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
