import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { memoize } from './memoize.ts';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

export type Encoding = 'br' | 'gzip' | 'identity';

/** A response body built once, with its compressed variants made on first demand. */
export interface CachedBody {
  body: Buffer;
  /** The strong tag of each encoding (see `etagFor`). */
  tags: Readonly<Record<Encoding, string>>;
  variants: Partial<Record<Exclude<Encoding, 'identity'>, Buffer>>;
  /** Bytes held, all variants included. */
  size: number;
  /** Where the entry is stored, if it is. */
  key: string | undefined;
  /** Asked for since eviction last passed it (see `createResponseCache`). */
  used: boolean;
}

/**
 * The strong tag of one encoding of a body: different bytes, different tag (RFC 9110 8.8.3),
 * all derived from the identity tag so a revalidation can match any of them.
 */
export function etagFor(entry: CachedBody, encoding: Encoding): string {
  return entry.tags[encoding];
}

/** Made once per entry: a cached answer otherwise built a new tag string on every request. */
function tagsOf(etag: string): Record<Encoding, string> {
  const variant = (encoding: Encoding) => `${etag.slice(0, -1)}-${encoding}"`;
  return { identity: etag, br: variant('br'), gzip: variant('gzip') };
}

/**
 * The tag of `entry`, in any of its encodings, that an `If-None-Match` header names, if any
 * (RFC 9110: weak comparison; `*` matches any current version). A single exact tag, what
 * browsers, CDNs and the SDK send, is matched without parsing a list.
 */
export function heldTag(entry: CachedBody, header: string | undefined): string | undefined {
  if (!header) return undefined;
  const { tags } = entry;
  if (header === tags.identity || header === tags.br || header === tags.gzip) return header;
  if (header.trim() === '*') return tags.identity;
  const held = header.split(',').map((candidate) => candidate.trim().replace(/^W\//, ''));
  return [tags.identity, tags.br, tags.gzip].find((tag) => held.includes(tag));
}

/**
 * The response cache's key for a delivery answer: a function of the project's content version,
 * which every served change bumps.
 */
export function deliveryCacheKey(projectId: string, contentVersion: number, what: string): string {
  return `${projectId}:${contentVersion}:${what}`;
}

/** Below this, compression saves less than its headers cost. */
const MIN_COMPRESS_BYTES = 1024;

/**
 * Ready-to-send response bodies by key, bounded by the bytes they hold: entries not asked for
 * lately go first. Keys carry the project's content version, so a write never needs to find
 * and delete entries; they simply stop being asked for and age out.
 */
export interface ResponseCache {
  get(key: string): CachedBody | undefined;
  /** Builds an entry for `text`; stores it under `key` unless caching is off. */
  put(key: string | undefined, text: string, etag?: string): CachedBody;
  /** The body in `encoding`, compressing it once and keeping the result. */
  encode(entry: CachedBody, encoding: Encoding): Promise<Buffer>;
  readonly bytes: number;
  /** The bound on `bytes`; 0 when caching is off. */
  readonly maxBytes: number;
}

export function createResponseCache(maxBytes: number): ResponseCache {
  const entries = new Map<string, CachedBody>();
  let bytes = 0;

  // Least recently used, approximately (the "clock" algorithm): a hit only marks its entry;
  // eviction walks from the oldest insertion, gives each marked entry a second chance at the
  // end of the line, and drops the first unmarked one. Moving the entry on every hit instead
  // (delete + set) cost 7 µs per hit in a V8 Map of 2,000 entries: a third of a cached answer.
  function evictUntil(limit: number): void {
    for (const [key, entry] of entries) {
      if (bytes <= limit) break;
      entries.delete(key);
      if (entry.used) {
        entry.used = false;
        entries.set(key, entry);
      } else {
        bytes -= entry.size;
      }
    }
  }

  return {
    maxBytes,
    get(key) {
      const entry = entries.get(key);
      if (entry) entry.used = true;
      return entry;
    },
    put(key, text, givenTag) {
      const body = Buffer.from(text, 'utf8');
      const etag = givenTag ?? `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
      const stored = key !== undefined && maxBytes > 0 && body.length <= maxBytes;
      const entry: CachedBody = {
        body,
        tags: tagsOf(etag),
        variants: {},
        size: body.length,
        key: stored ? key : undefined,
        used: false,
      };
      if (stored) {
        const previous = entries.get(key);
        if (previous) {
          entries.delete(key);
          bytes -= previous.size;
        }
        // Room first, then the entry: the walk must not drop what it makes room for.
        evictUntil(maxBytes - entry.size);
        bytes += entry.size;
        entries.set(key, entry);
      }
      return entry;
    },
    async encode(entry, encoding) {
      if (encoding === 'identity' || entry.body.length < MIN_COMPRESS_BYTES) return entry.body;
      const known = entry.variants[encoding];
      if (known) return known;
      // Quality 5 / level 6: most of the size win for a fraction of the highest settings' cost.
      const compressed =
        encoding === 'br'
          ? await brotli(entry.body, {
              params: {
                [constants.BROTLI_PARAM_QUALITY]: 5,
                [constants.BROTLI_PARAM_SIZE_HINT]: entry.body.length,
              },
            })
          : await gzipAsync(entry.body, { level: 6 });
      if (!entry.variants[encoding]) {
        entry.variants[encoding] = compressed;
        entry.size += compressed.length;
        if (entry.key !== undefined && entries.get(entry.key) === entry) {
          entry.used = true;
          bytes += compressed.length;
          evictUntil(maxBytes);
        }
      }
      return compressed;
    },
    get bytes() {
      return bytes;
    },
  };
}

/**
 * The best encoding the client accepts: br, then gzip, else identity. `q=0` refuses a coding;
 * `*` stands for any coding not named.
 */
export function negotiateEncoding(header: string | undefined): Encoding {
  return header ? negotiated(header) : 'identity';
}

// Clients send the same few headers on every request; parsing one is most of a cached answer.
const negotiated = memoize(1_000, parseAcceptEncoding);

function parseAcceptEncoding(header: string): Encoding {
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    weights.set(name, q === undefined ? 1 : Number(q));
  }
  const weightOf = (coding: string) => weights.get(coding) ?? weights.get('*') ?? 0;
  if (weightOf('br') > 0) return 'br';
  if (weightOf('gzip') > 0) return 'gzip';
  return 'identity';
}
