import type { Transform } from 'node:stream';
import { promisify } from 'node:util';
import { brotliCompress, constants, createBrotliCompress, createGzip, gzip } from 'node:zlib';
import { memoizeLast } from './memoize.ts';

/**
 * Compression of answers, in one place: which encoding a client gets, at what level, and from
 * what size. One brotli quality for ready bytes and streams alike: they are compressed once per
 * content version and sent many times, so a quality past the fast levels pays for itself only
 * on bodies far larger than a page of articles.
 */
export type Encoding = 'br' | 'gzip' | 'identity';

const BROTLI_QUALITY = 5;
const GZIP_LEVEL = 6;
/** Below this, compression saves less than its headers cost: such bodies go as they are. */
export const MIN_COMPRESS_BYTES = 1024;

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** `body` in `encoding`. */
export function compress(body: Buffer, encoding: Exclude<Encoding, 'identity'>): Promise<Buffer> {
  return encoding === 'br'
    ? brotli(body, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        },
      })
    : gzipAsync(body, { level: GZIP_LEVEL });
}

/** A stream that compresses what goes through it, for bodies too large to hold. */
export function compressing(encoding: Exclude<Encoding, 'identity'>): Transform {
  return encoding === 'br'
    ? createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } })
    : createGzip({ level: GZIP_LEVEL });
}

/**
 * The encoding the client prefers by its q-values (RFC 9110 12.5.3): of br and gzip, the one
 * weighted higher, br on a tie; identity when neither is acceptable, or when the client weights
 * identity above both. `q=0` refuses a coding; `*` stands for any coding not named.
 */
export function negotiateEncoding(header: string | undefined): Encoding {
  return header ? negotiated(header) : 'identity';
}

// Clients send the same few headers on every request; parsing one is most of a cached answer.
const negotiated = memoizeLast({ entries: 1_000, chars: 100_000 }, parseAcceptEncoding);

function parseAcceptEncoding(header: string): Encoding {
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    weights.set(name, q === undefined ? 1 : Number(q));
  }
  const weightOf = (coding: string) => weights.get(coding) ?? weights.get('*') ?? 0;
  const br = weightOf('br');
  const gzip = weightOf('gzip');
  const best = Math.max(br, gzip);
  // Identity unnamed is acceptable but preferred to nothing; named, it competes on its weight.
  if (best <= 0 || (weights.get('identity') ?? 0) > best) return 'identity';
  return br >= gzip ? 'br' : 'gzip';
}
