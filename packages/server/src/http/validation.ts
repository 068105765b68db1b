import type { ErrorObject } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FastifySchema } from 'fastify';
import type { ErrorDetail } from '../errors.ts';
import { createBoundedChecker } from './bounded-validation.ts';
import { inlineRefs } from './inline-refs.ts';
import { pointerToken } from './json-pointer.ts';

/** ajv-formats' plugin: CommonJS, so its default export arrives as the module object under type stripping. */
export const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;

type Part = 'body' | 'querystring' | 'params' | 'headers';

/** Ways to watch the validator at work; tests use it to prove the work stays bounded. */
export interface ValidatorCompilerOptions {
  /** Told, for each refused body, how many Ajv errors were examined to describe it. */
  onErrorsExamined?: (count: number) => void;
}

/**
 * Fastify's validator compiler. Bodies are checked strictly: no type coercion and no silent
 * removal of unknown fields, so a typo is an error that names the field. Query strings and path
 * parameters are text, so they are coerced to the declared types.
 */
export function createValidatorCompiler(sharedSchemas: object[], options: ValidatorCompilerOptions = {}) {
  const base = { strict: false, useDefaults: true } as const;
  const failFast = addFormats(new Ajv2020({ ...base, coerceTypes: false }));
  const thorough = addFormats(new Ajv2020({ ...base, allErrors: true, verbose: true, coerceTypes: false }));
  const coercing = addFormats(new Ajv2020({ ...base, allErrors: true, verbose: true, coerceTypes: 'array' }));
  for (const schema of sharedSchemas) {
    for (const ajv of [failFast, thorough, coercing]) ajv.addSchema(schema);
  }
  const checkers: Array<ReturnType<typeof createBoundedChecker>> = [];
  const compile = ({ schema, httpPart }: { schema: FastifySchema; httpPart?: string }) => {
    if (httpPart === 'body') {
      const inlined = inlineRefs(schema as object, sharedSchemas) ?? {
        root: schema as object,
        locations: new WeakMap(),
      };
      const checker = createBoundedChecker(schema as object, inlined, { failFast, thorough });
      checkers.push(checker);
      return boundedValidator(checker, options);
    }
    const validate = coercing.compile(schema as object);
    return httpPart === 'querystring' ? decimalIntegers(validate, schema) : validate;
  };
  // A refused body's parts compile on first use, which held the event loop for the first hostile
  // body a process met; a server warms them at start instead (tests, which build many apps, skip it).
  const warm = () => {
    for (const checker of checkers) checker.warm();
  };
  return Object.assign(compile, { warm });
}

/**
 * Valid bodies pass one fail-fast check. A refused body's errors are collected only until they
 * make more than MAX_DETAILS distinct details: collecting every error of a body with thousands of
 * problems held the event loop for seconds.
 */
function boundedValidator(
  checker: ReturnType<typeof createBoundedChecker>,
  options: ValidatorCompilerOptions,
): Validator {
  const validate: Validator = (data) => {
    if (checker.isValid(data)) {
      validate.errors = null;
      return true;
    }
    const errors: ErrorObject[] = [];
    const seen = new Set<string>();
    checker.collect(data, {
      add(error) {
        errors.push(error);
        const detail = describe(error);
        if (detail) seen.add(detailKey(detail));
        return seen.size <= MAX_DETAILS;
      },
    });
    options.onErrorsExamined?.(errors.length);
    validate.errors = errors;
    return false;
  };
  return validate;
}

type Validator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/**
 * Coercion reads a number the way JavaScript does: `1e1` as 10, `0x10` as 16, ` 1` as 1. A
 * whole number in a query string is decimal digits (a minus allowed, for the minimum to
 * report), so anything else is refused as "must be integer" before coercion. One too large to
 * hold exactly is read as the largest that is: it is still a whole number (a page past the end,
 * a limit to cap), not a 400.
 */
function decimalIntegers(validate: Validator, schema: FastifySchema): Validator {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  const integers = Object.keys(properties).filter((name) => properties[name]!.type === 'integer');
  if (integers.length === 0) return validate;
  const checked: Validator = (data) => {
    const query = data as Record<string, unknown> | null;
    for (const name of integers) {
      const value = query?.[name];
      if (
        typeof value === 'string' &&
        /^[0-9]{16,}$/.test(value) &&
        Number(value) > Number.MAX_SAFE_INTEGER
      ) {
        query![name] = String(Number.MAX_SAFE_INTEGER);
      }
    }
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

/**
 * Turns Ajv's errors into the contract's `details`: a JSON Pointer and a sentence each. Stops at
 * MAX_DETAILS + 1, which is enough to tell that there are more than MAX_DETAILS.
 */
export function describeValidationErrors(errors: ErrorObject[]): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    const detail = describe(error);
    if (!detail || seen.has(detailKey(detail))) continue;
    seen.add(detailKey(detail));
    details.push(detail);
    if (details.length > MAX_DETAILS) break;
  }
  return details;
}

function detailKey(detail: ErrorDetail): string {
  return `${detail.path}\u0000${detail.message}`;
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
      return { path: `${path}/${pointerToken(field)}`, message: 'is not a known field' };
    }
    case 'required':
      return { path: `${path}/${pointerToken(String(params.missingProperty))}`, message: 'is required' };
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

/** Enough to fix a body; a hostile one with thousands of problems gets a bounded answer. */
export const MAX_DETAILS = 100;

/** One sentence for the error's `message`: the first problem and how many more there are. */
export function summarizeDetails(part: Part, details: ErrorDetail[]): string {
  const what = part === 'body' ? 'request body' : part === 'querystring' ? 'query string' : 'request';
  const first = details[0];
  if (!first) return `The ${what} is not valid.`;
  const field = first.path === '/' ? '' : `${first.path.replace(/^\//, '')} `;
  return `The ${what} is not valid: ${field}${first.message}${countOthers(details)}.`;
}

/**
 * ` (and 3 more problems)`, or empty for one problem. Past MAX_DETAILS the rest were not looked
 * for, so the count is a lower bound and says so.
 */
export function countOthers(details: ErrorDetail[]): string {
  if (details.length > MAX_DETAILS) return ` (and at least ${MAX_DETAILS} more problems)`;
  const rest = details.length - 1;
  return rest > 0 ? ` (and ${rest} more problem${rest > 1 ? 's' : ''})` : '';
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
