import type { FastifyReply, FastifyRequest } from 'fastify';
import { negotiateEncoding } from './compression.ts';
import { heldTag, strongTag } from './etag.ts';
import type { ResponseCache } from './response-cache.ts';

/**
 * Sends a JSON body from the response cache, building it on a miss. The body's bytes are made
 * once per key; each request only picks the encoding the client accepts. The conditional-GET
 * hook turns a matching `If-None-Match` into a 304 without compressing anything.
 */
export async function sendJson(
  request: FastifyRequest,
  reply: FastifyReply,
  cache: ResponseCache,
  key: string | undefined,
  build: () => Promise<string>,
  /** Told whether the answer was found ready (a delivery answer's cache hit) or built. */
  looked?: (hit: boolean) => void,
): Promise<FastifyReply> {
  return sendCached(request, reply, cache, { key, type: 'application/json; charset=utf-8' }, build, looked);
}

/** `sendJson` for a text body of any type: a page, a script. */
export async function sendCached(
  request: FastifyRequest,
  reply: FastifyReply,
  cache: ResponseCache,
  what: { key: string | undefined; type: string },
  build: () => Promise<string>,
  looked?: (hit: boolean) => void,
): Promise<FastifyReply> {
  const found = what.key !== undefined ? cache.get(what.key) : undefined;
  looked?.(found !== undefined);
  const entry = found ?? cache.put(what.key, await build());
  reply.header('content-type', what.type);
  reply.header('vary', 'accept-encoding');
  const held = heldTag(entry.tags, request.headers['if-none-match']);
  if (held) {
    // The conditional-GET hook answers 304 for this tag; no need to compress anything.
    reply.header('etag', held);
    return reply.send(entry.body);
  }
  const wanted = negotiateEncoding(request.headers['accept-encoding']);
  const bytes = await cache.encode(entry, wanted);
  const encoding = bytes === entry.body ? 'identity' : wanted;
  if (encoding !== 'identity') reply.header('content-encoding', encoding);
  reply.header('etag', entry.tags[encoding]);
  return reply.send(bytes);
}

/** What a preview answer is sent with: for one reader, kept by no cache (contract, Part 2). */
export const PRIVATE_NO_STORE = 'private, no-store';

/**
 * Sends a JSON body that is for one reader and built for this request: a preview answer. It
 * never enters the response cache, and its tag is not the one the same bytes would have for a
 * content key, so neither can stand for the other in a conditional request.
 */
export function sendPrivateJson(reply: FastifyReply, body: string): FastifyReply {
  reply.header('content-type', 'application/json; charset=utf-8');
  reply.header('cache-control', PRIVATE_NO_STORE);
  reply.header('etag', strongTag(`preview\n${body}`));
  return reply.send(body);
}
