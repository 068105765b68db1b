import type { FastifyInstance } from 'fastify';
import { BODY_HEADERS, matchesIfNoneMatch, strongTag } from './etag.ts';

/**
 * Strong ETags on every successful GET, and 304 for a matching `If-None-Match`. The tag is a
 * hash of the exact bytes sent, so equal bytes always get equal tags.
 */
export function installConditionalGets(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', cacheControlFor(request.url));
    if ((request.method !== 'GET' && request.method !== 'HEAD') || reply.statusCode !== 200) return payload;
    // Cached bodies come with their tag; others are hashed here.
    let etag = reply.getHeader('etag') as string | undefined;
    if (etag === undefined) {
      if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
      etag = strongTag(payload);
      reply.header('etag', etag);
    }
    if (!matchesIfNoneMatch(request.headers['if-none-match'], etag)) return payload;
    reply.code(304);
    for (const name of BODY_HEADERS) reply.removeHeader(name);
    // RFC 9110 (8.6): a 304 may carry no Content-Length but the 200's, so not `0`. A GET sends no
    // payload at all; for HEAD, Fastify's own handler drops the body and sets the 200's length.
    if (request.method === 'HEAD') return payload;
    reply.removeHeader('content-length');
    return null;
  });
}

/** Delivery answers are per key: a shared cache must not reuse them, but may revalidate. */
export const DELIVERY_CACHE_CONTROL = 'private, no-cache';

/** What a preview answer is sent with: for one reader, kept by no cache (contract, Part 2). */
export const PRIVATE_NO_STORE = 'private, no-store';

function cacheControlFor(url: string): string {
  if (url.startsWith('/api/')) return DELIVERY_CACHE_CONTROL;
  if (url.startsWith('/public/')) return 'public, max-age=300';
  return 'no-store';
}
