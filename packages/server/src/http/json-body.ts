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
      value = JSON.parse(text);
    } catch (error) {
      const reason = error instanceof Error ? error.message : 'it cannot be parsed';
      return done(new AppError('invalid_body', `The request body is not valid JSON: ${reason}`), undefined);
    }
    // One walk without recursion: text the databases cannot keep (PostgreSQL text cannot hold
    // U+0000, UTF-8 no lone surrogate) and nesting deeper than validation and serialization may
    // recurse. A reviver did the first before, at the cost of a call per value parsed.
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
