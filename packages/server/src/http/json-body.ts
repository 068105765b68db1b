import { isUtf8 } from 'node:buffer';
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.ts';
import { findUnstorableText, mayHoldUnstorableText } from './storable-text.ts';
import { summarizeDetails } from './validation.ts';

/** The largest JSON body taken (contract: bodies over 1 MiB answer 413); an import line too. */
export const JSON_BODY_LIMIT = 1024 * 1024;

/**
 * Only `application/json` bodies are accepted; anything else answers 415. An empty body is
 * allowed so action endpoints (publish, unpublish) work with clients that always send the
 * header.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  // A request with neither Content-Length nor Transfer-Encoding has no body (RFC 9112 6.3), and
  // the HTTP server's `optimizeEmptyRequests` then never emits its stream's `end`. A body
  // parser waits for that event, so such a request with a Content-Type (a client that always
  // sends the header, on a DELETE or an action POST) would never be answered. It is given an
  // empty body that ends.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const { headers } = request;
    // No route takes it: a body the 404 would otherwise read (and refuse as not JSON, too large or
    // compressed) must not turn "no such route" into a 400, 413 or 415. Without a media type the
    // framework hands a 404 on unread, as it does one whose type no parser takes; Node drops the
    // bytes.
    if (request.is404) {
      delete headers['content-type'];
      return done(null, payload);
    }
    // A compressed body would otherwise be read as its compressed bytes (RFC 9110 8.4: a coding
    // the server does not take may be answered 415).
    const coding = headers['content-encoding']?.trim().toLowerCase();
    const hasBody = headers['transfer-encoding'] !== undefined || Number(headers['content-length']) > 0;
    if (hasBody && coding !== undefined && coding !== '' && coding !== 'identity') {
      const why = `The request body must not be compressed (Content-Encoding: ${coding}); send it as plain JSON.`;
      return done(new AppError('unsupported_media_type', why), undefined);
    }
    const bodiless =
      headers['content-type'] !== undefined &&
      headers['content-length'] === undefined &&
      headers['transfer-encoding'] === undefined;
    done(null, bodiless ? Readable.from([]) : payload);
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    const bytes = body as Buffer;
    // JSON is UTF-8 (RFC 8259); decoding other bytes would store U+FFFD in their place, silently.
    if (!isUtf8(bytes))
      return done(new AppError('invalid_body', 'The request body is not valid UTF-8.'), undefined);
    const text = bytes.toString('utf8');
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
    // recurse. A reviver did the first before, at the cost of a call per value parsed. The walk
    // is made only when a scan of the text says there may be something to find.
    const unstorable = mayHoldUnstorableText(text) ? findUnstorableText(value) : undefined;
    if (unstorable) {
      return done(
        new AppError('invalid_body', summarizeDetails('body', [unstorable]), [unstorable]),
        undefined,
      );
    }
    done(null, value);
  });
}
