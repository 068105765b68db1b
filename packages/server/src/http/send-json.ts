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
  /** For an answer that holds a time: now, and until when an answer built now stays the same. */
  timed?: Timed,
): Promise<FastifyReply> {
  const type = 'application/json; charset=utf-8';
  return sendCached(request, reply, cache, { key, type, ...(timed ? { timed } : {}) }, build, looked);
}

/** When an answer is asked for, and until when one built then may be served again. */
export interface Timed {
  now: number;
  expiresAt: number;
}

/** `sendJson` for a text body of any type: a page, a script. */
export async function sendCached(
  request: FastifyRequest,
  reply: FastifyReply,
  cache: ResponseCache,
  what: { key: string | undefined; type: string; timed?: Timed },
  build: () => Promise<string>,
  looked?: (hit: boolean) => void,
): Promise<FastifyReply> {
  const { key, timed } = what;
  const held = key !== undefined ? cache.get(key) : undefined;
  // Past its time a kept answer is no longer the answer: built anew, it replaces it.
  const found = held?.expiresAt !== undefined && (timed?.now ?? 0) >= held.expiresAt ? undefined : held;
  looked?.(found !== undefined);
  const entry = found ?? cache.put(key, await build(), undefined, timed?.expiresAt);
  reply.header('content-type', what.type);
  reply.header('vary', 'accept-encoding');
  const matched = heldTag(entry.tags, request.headers['if-none-match']);
  if (matched) {
    // The conditional-GET hook answers 304 for this tag; no need to compress anything.
    reply.header('etag', matched);
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
