import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.ts';

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
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      const reason = error instanceof Error ? error.message : 'it cannot be parsed';
      done(new AppError('invalid_body', `The request body is not valid JSON: ${reason}`), undefined);
    }
  });
}
