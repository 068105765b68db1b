import {
  ArticleIdSchema,
  articleInputSchema,
  type BlocksSchema,
  blocksJsonSchema,
  draftInputSchema,
} from '@folio/schema';
import { type TSchema, Type } from '@sinclair/typebox';
import type { ErrorObject } from 'ajv';
import { AppError, type ErrorDetail } from '../errors.ts';
import { findUnstorableText, mayHoldUnstorableText } from '../http/storable-text.ts';
import {
  countOthers,
  createValidatorCompiler,
  describeValidationErrors,
  MAX_DETAILS,
} from '../http/validation.ts';

type Check = ((value: unknown) => boolean) & { errors?: ErrorObject[] | null };

/**
 * The HTTP API's validators for command-line input: the same Ajv setup and, for articles, the
 * same JSON Schema as the ingest route (the blocks document served at /public/v1/schema/blocks.json),
 * so a bad article gets the same `details` here as over HTTP.
 */
export function createInputValidator(baseUrl: string) {
  const blocksSchema = blocksJsonSchema(baseUrl);
  const compile = createValidatorCompiler([blocksSchema]);
  const compileBody = (schema: TSchema) => compile({ schema, httpPart: 'body' }) as Check;
  const blocks = Type.Unsafe<typeof BlocksSchema.static>({ $ref: blocksSchema.$id });
  const article = compileBody(articleInputSchema(blocks));
  const draft = compileBody(draftInputSchema(blocks));
  const articleId = compileBody(ArticleIdSchema);
  const flag = compileBody(Type.Boolean());
  const problems = (check: Check, value: unknown): ErrorDetail[] =>
    check(value) ? [] : describeValidationErrors(check.errors ?? []);

  return {
    /** Throws `invalid_body` naming each problem unless `value` matches `schema`. */
    check(schema: TSchema, value: unknown): void {
      const details = problems(compileBody(schema), value);
      if (details.length > 0)
        throw new AppError(
          'invalid_body',
          `Invalid input: ${describeDetails(details)}.`,
          details.slice(0, MAX_DETAILS),
        );
    },
    /**
     * The problems of one import line, `{ id, ...article }` or `{ id, draft: true, ...draft }`
     * (checked as the article PUT's and the draft PUT's bodies); none when it can be ingested. At
     * most MAX_DETAILS + 1, the last only telling that there are more than MAX_DETAILS. With the
     * line's text, the walk for unstorable text is made only when a scan of the text may find some.
     */
    articleLineProblems(value: unknown, json?: string): ErrorDetail[] {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        return [{ path: '/', message: 'must be an object' }];
      }
      // As over HTTP, where the body parser refuses such a body before any schema sees it.
      const unstorable =
        json === undefined || mayHoldUnstorableText(json) ? findUnstorableText(value) : undefined;
      if (unstorable) return [unstorable];
      const { id, draft: isDraft, ...input } = value as Record<string, unknown>;
      const lineProblems: ErrorDetail[] =
        id === undefined
          ? [{ path: '/id', message: 'is required' }]
          : problems(articleId, id).map((detail) => ({ ...detail, path: '/id' }));
      if (isDraft !== undefined) {
        lineProblems.push(...problems(flag, isDraft).map((detail) => ({ ...detail, path: '/draft' })));
      }
      if (isDraft !== true) return [...lineProblems, ...problems(article, input)].slice(0, MAX_DETAILS + 1);
      // The draft PUT would only call it an unknown field; on a line beside article lines, say why.
      const { published, ...draftInput } = input;
      if (published !== undefined) {
        const why = 'cannot be set on a draft line: saving a draft never publishes (publishAt can)';
        lineProblems.push({ path: '/published', message: why });
      }
      return [...lineProblems, ...problems(draft, draftInput)].slice(0, MAX_DETAILS + 1);
    },
  };
}

export type InputValidator = ReturnType<typeof createInputValidator>;

/** Which command-line input fills each API field, e.g. `{ websiteUrl: '--website-url' }`. */
export type InputNames = Record<string, string>;

/**
 * Runs `work`; an `invalid_body` it throws (from the validator or a service) is reworded to name
 * the command line's flags and arguments (`--website-url`), which is what the user typed,
 * instead of the API's fields (`websiteUrl`). `details` keep the API's paths for scripts.
 */
export async function namingInputs<T>(names: InputNames, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'invalid_body' || !error.details?.length) throw error;
    const renamed = error.details.map((detail) => {
      const [, field = '', rest = ''] = /^\/([^/]*)(.*)$/.exec(detail.path) ?? [];
      const name = names[field];
      return name === undefined ? detail : { ...detail, path: `${name}${rest}` };
    });
    throw new AppError('invalid_body', `${describeDetails(renamed)}.`, error.details);
  }
}

/** The first problem as a phrase (`blocks/0/level must be >= 2`), and how many more there are. */
export function describeDetails(details: ErrorDetail[]): string {
  const first = details[0];
  if (!first) return 'is not valid';
  const field = first.path === '/' ? '' : `${first.path.replace(/^\//, '')} `;
  return `${field}${first.message}${countOthers(details)}`;
}
