import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.ts';
import { findUnstorableText } from './storable-text.ts';
import { summarizeDetails } from './validation.ts';

/**
 * Only `application/json` bodies are accepted; anything else answers 415. An empty body is
 * allowed so action endpoints (publish, unpublish) work with clients that always send the
 * header.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    let value: unknown;
    try {
      value = JSON.parse(text, refuseNul);
    } catch (error) {
      if (error instanceof AppError) return done(error, undefined);
      const reason = error instanceof Error ? error.message : 'it cannot be parsed';
      return done(new AppError('invalid_body', `The request body is not valid JSON: ${reason}`), undefined);
    }
    // The reviver stays: its recursion also refuses a body nested deeper than the stack, which
    // validation and serialization would otherwise meet as a 500. This walk does not recurse.
    const unstorable = findUnstorableText(value);
    if (unstorable) {
      return done(
        new AppError('invalid_body', summarizeDetails('body', [unstorable]), [unstorable]),
        undefined,
      );
    }
    done(null, value);
  });
}

// PostgreSQL text cannot hold U+0000; refusing it here keeps both dialects alike.
function refuseNul(key: string, value: unknown): unknown {
  if (key.includes('\u0000') || (typeof value === 'string' && value.includes('\u0000'))) {
    throw new AppError(
      'invalid_body',
      'The request body contains a NUL character (\\u0000), which cannot be stored.',
    );
  }
  return value;
}
