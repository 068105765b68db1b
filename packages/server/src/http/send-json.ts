import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JsonText } from '../services/json-runs.ts';
import { PRIVATE_NO_STORE } from './caching.ts';
import { negotiateEncoding } from './compression.ts';
import { heldTag, matchesIfNoneMatch, strongTag } from './etag.ts';
import type { ResponseCache } from './response-cache.ts';
import { readableOf, streamJson, streamTags } from './send-stream.ts';

/**
 * An answer made in chunks (a list, `services/json-runs.ts`) that ends within this many bytes is
 * sent whole, as any other, with a tag of its bytes; a larger one is streamed as it is made, so
 * what one request holds stays bounded whatever the articles weigh.
 */
export const WHOLE_ANSWER_BYTES = 1024 * 1024;
// A streamed answer is kept for the next request up to this size: requests for many large pages
// at once each collect their bytes while streaming, and those bytes are heap.
const KEEP_STREAMED_UP_TO = 8 * 1024 * 1024;

/** `text` whole when it ends within `WHOLE_ANSWER_BYTES`; else all of it as a stream. */
export async function wholeOrStream(
  text: JsonText,
): Promise<{ whole: string } | { stream: AsyncIterable<string> }> {
  if (typeof text === 'string') return { whole: text };
  const iterator = text[Symbol.asyncIterator]();
  const read: string[] = [];
  let bytes = 0;
  for (;;) {
    const next = await iterator.next();
    if (next.done) return { whole: read.join('') };
    read.push(next.value);
    bytes += Buffer.byteLength(next.value, 'utf8');
    if (bytes > WHOLE_ANSWER_BYTES) break;
  }
  async function* rest(): AsyncGenerator<string> {
    try {
      yield* read.splice(0);
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
    } finally {
      // A stream closed early (the reader went away) ends the generator it reads from too.
      await iterator.return?.();
    }
  }
  return { stream: rest() };
}

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
  build: () => Promise<JsonText>,
  /** Told whether the answer was found ready (a delivery answer's cache hit) or built. */
  looked?: (hit: boolean) => void,
  /** For an answer that holds a time: now, and until when an answer built now stays the same. */
  timed?: Timed,
): Promise<FastifyReply> {
  const type = 'application/json; charset=utf-8';
  return sendCached(request, reply, cache, { key, type, ...(timed ? { timed } : {}) }, build, looked);
}

/**
 * Streams a large JSON body that is a function of `key` (`streamJson`), unless the response
 * cache holds it from an earlier request.
 */
export async function sendJsonStream(
  request: FastifyRequest,
  reply: FastifyReply,
  cache: ResponseCache,
  key: string,
  chunks: () => AsyncIterable<string>,
  looked?: (hit: boolean) => void,
): Promise<FastifyReply> {
  if (cache.get(key)) return sendJson(request, reply, cache, key, async () => '', looked);
  looked?.(false);
  return streamJson(request, reply, cache, { key }, chunks());
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
  build: () => Promise<JsonText>,
  looked?: (hit: boolean) => void,
): Promise<FastifyReply> {
  const { key, timed } = what;
  const held = key !== undefined ? cache.get(key) : undefined;
  // Past its time a kept answer is no longer the answer: built anew, it replaces it.
  const found = held?.expiresAt !== undefined && (timed?.now ?? 0) >= held.expiresAt ? undefined : held;
  looked?.(found !== undefined);
  let entry = found;
  if (!entry) {
    // A tag a streamed answer of this key was sent with stands for it: a 304 without reading.
    // Not `*`: it matches only a current representation (RFC 9110 13.1.2), and whether there is
    // one (an unknown slug, an expired cursor) and what its tag is are known once it is built.
    const ifNoneMatch = request.headers['if-none-match'];
    const streamed =
      key === undefined || ifNoneMatch === undefined || ifNoneMatch.trim() === '*'
        ? undefined
        : streamTags(key, timed?.expiresAt).identity;
    if (streamed && matchesIfNoneMatch(ifNoneMatch, streamed)) {
      reply.header('content-type', what.type);
      reply.header('vary', 'accept-encoding');
      reply.header('etag', streamed);
      return reply.send('');
    }
    await reply.server.answerSlots.hold(reply);
    const built = await wholeOrStream(await build());
    if ('stream' in built) {
      const keeping = { key, expiresAt: timed?.expiresAt, keepUpTo: KEEP_STREAMED_UP_TO };
      return streamJson(request, reply, cache, keeping, built.stream);
    }
    entry = cache.put(key, built.whole, undefined, timed?.expiresAt);
  }
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

/**
 * `sendPrivateJson` for a body that may come in chunks: streamed when large, then untagged. A
 * preview answer shows drafts, which a draft save changes without a new content version, so
 * nothing known before its bytes tells it apart.
 */
export async function sendPrivateJsonText(reply: FastifyReply, text: JsonText): Promise<FastifyReply> {
  if (typeof text !== 'string') await reply.server.answerSlots.hold(reply);
  const built = await wholeOrStream(text);
  if ('whole' in built) return sendPrivateJson(reply, built.whole);
  reply.header('content-type', 'application/json; charset=utf-8');
  reply.header('cache-control', PRIVATE_NO_STORE);
  return reply.send(readableOf(reply.request, built.stream));
}

/**
 * A JSON answer of the management API that may come in chunks: whole when small (the
 * conditional-GET hook tags it), else streamed, untagged, as it is made.
 */
export async function sendJsonText(reply: FastifyReply, text: JsonText): Promise<FastifyReply> {
  if (typeof text !== 'string') await reply.server.answerSlots.hold(reply);
  const built = await wholeOrStream(text);
  reply.header('content-type', 'application/json; charset=utf-8');
  return reply.send('whole' in built ? built.whole : readableOf(reply.request, built.stream));
}
