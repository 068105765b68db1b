import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PRIVATE_NO_STORE } from './caching.ts';
import { compressing, MIN_COMPRESS_BYTES, negotiateEncoding } from './compression.ts';
import { encodedTags, matchesIfNoneMatch, strongTag } from './etag.ts';
import type { ResponseCache } from './response-cache.ts';

/**
 * A stream reads its next chunk only once the last went to the socket: a chunk may be a run of
 * large articles (`services/json-runs.ts`), and by default a stream reads sixteen ahead of a
 * slow reader.
 */
export const CHUNK_AT_A_TIME = { highWaterMark: 1 };

/** Bodies up to this size are kept in the response cache after they were streamed once. */
const MAX_CACHED_STREAM_BYTES = 32 * 1024 * 1024;

// Keys whose bytes a stream is collecting for the cache now. Concurrent misses of one large
// answer (a sitemap asked for by many readers at once after a change) would otherwise each hold
// a copy of it; the first one collects, the others only send.
const collecting = new Set<string>();
// Bytes all streams together hold for the cache: each stream's own bound, times every stream at
// once, would be more than a heap.
let collectedBytes = 0;

/** Where a streamed answer is kept for the next request, and until when. */
export interface StreamKeeping {
  /** Undefined: an answer not to be kept. */
  key: string | undefined;
  expiresAt?: number | undefined;
  /** The largest body kept (`MAX_CACHED_STREAM_BYTES` unless smaller). */
  keepUpTo?: number;
}

/**
 * Streams a large JSON body that is a function of its key (which holds the content version) and,
 * for one that holds a time, of until when it stays the same, so memory stays bounded. Its strong
 * tag is derived from those, since it must be sent before the body exists; the bytes are
 * collected on the way and cached for the next request.
 */
export async function streamJson(
  request: FastifyRequest,
  reply: FastifyReply,
  cache: ResponseCache,
  keeping: StreamKeeping,
  chunks: AsyncIterable<string>,
): Promise<FastifyReply> {
  const { key, expiresAt } = keeping;
  const tags = streamTags(key, expiresAt);
  const etag = tags.identity;
  const unchanged = key !== undefined && matchesIfNoneMatch(request.headers['if-none-match'], etag);
  // What a 304 says is known from the key: no turn to read the database is needed for it.
  if (unchanged) await chunks[Symbol.asyncIterator]().return?.();
  else await reply.server.answerSlots.hold(reply);
  reply.header('content-type', 'application/json; charset=utf-8');
  reply.header('vary', 'accept-encoding');
  if (key !== undefined) reply.header('etag', etag);
  if (unchanged) return reply.send('');

  const collected: string[] = [];
  let size = 0;
  // Strings go to the socket as they are: a Buffer per chunk would be memory outside the heap
  // that lives until the garbage collector finds its handle, long after the bytes were sent.
  async function* collect(): AsyncGenerator<string> {
    // Bytes are kept for the cache only while it could still take them, by one stream at a
    // time; marked here, where `finally` is sure to run once the body is read at all.
    const collector = key !== undefined && !collecting.has(key);
    if (collector) collecting.add(key);
    let keepUpTo = collector
      ? Math.min(keeping.keepUpTo ?? MAX_CACHED_STREAM_BYTES, MAX_CACHED_STREAM_BYTES, cache.maxBytes)
      : -1;
    let held = 0;
    const letGo = () => {
      collectedBytes -= held;
      held = 0;
      collected.length = 0;
    };
    try {
      for await (const chunk of source) {
        // Once past what the cache takes, the rest is not even measured.
        if (size <= keepUpTo) {
          const bytes = Buffer.byteLength(chunk, 'utf8');
          size += bytes;
          if (size > keepUpTo || collectedBytes + bytes > MAX_CACHED_STREAM_BYTES) {
            keepUpTo = -1;
            letGo();
          } else {
            collected.push(chunk);
            held += bytes;
            collectedBytes += bytes;
          }
        }
        yield chunk;
      }
      if (size <= keepUpTo) cache.put(key, collected.join(''), etag, expiresAt);
    } finally {
      letGo();
      if (collector) collecting.delete(key);
    }
  }
  const wanted = negotiateEncoding(request.headers['accept-encoding']);
  // A body that ends within MIN_COMPRESS_BYTES goes as it is, as its cached bytes will: the
  // encoding a client gets must not depend on whether the answer was streamed or kept.
  const first = wanted === 'identity' ? undefined : await readUpTo(chunks, MIN_COMPRESS_BYTES);
  const source = first?.all ?? chunks;
  const encoding = first?.ended ? 'identity' : wanted;
  // A HEAD reads no further; `readableOf` leaves unstarted what it would end.
  if (first && request.method === 'HEAD') await first.all[Symbol.asyncIterator]().return?.();
  const body = readableOf(request, collect());
  if (encoding === 'identity') return reply.send(body);
  reply.header('content-encoding', encoding);
  if (key !== undefined) reply.header('etag', tags[encoding]);
  return reply.send(body.pipe(compressing(encoding)));
}

/**
 * The chunks of `chunks` up to `bytes` (or to its end), read now, and an iterable of all of
 * them, those first: whether a body is small is known only once read.
 */
async function readUpTo(
  chunks: AsyncIterable<string>,
  bytes: number,
): Promise<{ ended: boolean; all: AsyncIterable<string> }> {
  const iterator = chunks[Symbol.asyncIterator]();
  const read: string[] = [];
  let size = 0;
  let ended = false;
  while (size < bytes) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    read.push(next.value);
    size += Buffer.byteLength(next.value, 'utf8');
  }
  const all: AsyncIterable<string> = {
    [Symbol.asyncIterator]: () => ({
      next: async () => {
        const chunk = read.shift();
        if (chunk !== undefined) return { done: false, value: chunk };
        return ended ? { done: true, value: undefined } : iterator.next();
      },
      // Ended early (a HEAD, a reader gone): the source is ended too.
      return: async () => {
        read.length = 0;
        if (!ended) await iterator.return?.();
        return { done: true, value: undefined };
      },
    }),
  };
  return { ended, all };
}

/**
 * Streams a preview answer too large to build whole, as `sendPrivateJson` sends one: never
 * cached, with a tag of its own. The tag is derived from `key` (which holds the content version),
 * since it goes before the body, and marked as a preview's so it never validates a content answer.
 */
export async function sendPrivateJsonStream(
  request: FastifyRequest,
  reply: FastifyReply,
  key: string,
  chunks: () => AsyncIterable<string>,
): Promise<FastifyReply> {
  const etag = strongTag(`preview\n${key}`);
  const unchanged = matchesIfNoneMatch(request.headers['if-none-match'], etag);
  if (!unchanged) await reply.server.answerSlots.hold(reply);
  reply.header('content-type', 'application/json; charset=utf-8');
  reply.header('cache-control', PRIVATE_NO_STORE);
  reply.header('etag', etag);
  if (unchanged) return reply.send('');
  return reply.send(readableOf(request, chunks()));
}

/**
 * The strong tags of a streamed answer, derived from its key (which holds the content version)
 * and, for one that holds a time, until when it stays the same: the bytes are not known before
 * they are sent. An answer that holds a time is other bytes past it under the same key (the
 * changes feed).
 */
export function streamTags(key: string | undefined, expiresAt: number | undefined) {
  return encodedTags(strongTag(expiresAt === undefined ? (key ?? '') : `${key}\n${expiresAt}`));
}

/**
 * `chunks` as a body read one chunk at a time. For a HEAD request, an empty one, and `chunks`
 * ended unread: Fastify drains the body of a HEAD answer after it is sent, which would read the
 * whole list from the database for nobody, after its turn was given back.
 */
export function readableOf(request: FastifyRequest, chunks: AsyncIterable<string>): Readable {
  if (request.method !== 'HEAD') return Readable.from(chunks, CHUNK_AT_A_TIME);
  void chunks[Symbol.asyncIterator]().return?.();
  return Readable.from([]);
}
