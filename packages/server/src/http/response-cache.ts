import { compress, type Encoding, MIN_COMPRESS_BYTES } from './compression.ts';
import { encodedTags, strongTag } from './etag.ts';

/** A response body built once, with its compressed variants made on first demand. */
export interface CachedBody {
  body: Buffer;
  /** The strong tag of each encoding (see `http/etag.ts`). */
  tags: Readonly<Record<Encoding, string>>;
  variants: Partial<Record<Exclude<Encoding, 'identity'>, Buffer>>;
  /** Bytes held, all variants included. */
  size: number;
  /** Where the entry is stored, if it is. */
  key: string | undefined;
  /** Asked for since eviction last passed it (see `createResponseCache`). */
  used: boolean;
  /**
   * For an answer that holds a time (the changes feed's next cursor): the epoch milliseconds
   * from which it is no longer the answer, and is made anew. Undefined: good for its key's life.
   */
  expiresAt: number | undefined;
}

/**
 * The response cache's key for a delivery answer: a function of the project's content version,
 * which every served change bumps.
 */
export function deliveryCacheKey(projectId: string, contentVersion: number, what: string): string {
  return `${projectId}:${contentVersion}:${what}`;
}

/**
 * What an entry costs beyond its body bytes, its key's bytes and its variants' bytes: the entry
 * and tags objects, the three tag strings, the Map slot, and the body Buffer with its own
 * backing store. Measured, not guessed: `npm run bench -- flood` runs `bench/entry-cost.ts`,
 * which fills a cache with entries shaped as the delivery routes make them and divides the
 * growth of heap plus external memory, and of RSS, after full collections, by their number.
 * RSS grows several times more than the heap counts (the heap's free room grows with it, and
 * each backing store has a native part): this is the RSS figure, rounded up. The figures are
 * in BENCHMARKS.md ("Flood of distinct URLs"); a test checks that this still covers the heap.
 */
export const ENTRY_OVERHEAD_BYTES = 2048;
/**
 * The same for each compressed variant: a Buffer and its backing store. Its RSS growth is mostly
 * brotli's working memory and varies from run to run; this is the heap and external growth
 * with the native part of a backing store (the entry's figure less the heap's), rounded up.
 */
export const VARIANT_OVERHEAD_BYTES = 1024;
/**
 * Share of the bound that answers asked for more than once may hold; the rest always takes new
 * answers, so a flood of one-time URLs only replaces other one-time answers.
 */
const PROTECTED_SHARE = 0.8;

/** What an entry for `key` with a body of `bodyBytes` is accounted, before any variant. */
export function entryCost(key: string, bodyBytes: number): number {
  // UTF-8 bytes are never fewer than V8 holds the string in (1 byte per Latin-1 character, 2
  // per other UTF-16 unit).
  return ENTRY_OVERHEAD_BYTES + Buffer.byteLength(key, 'utf8') + bodyBytes;
}

/**
 * Ready-to-send response bodies by key, bounded by what they cost in memory, overhead included.
 * Keys carry the project's content version, so a write never needs to find and delete
 * entries; they simply stop being asked for and age out.
 */
export interface ResponseCache {
  /** The entry of `key`; a hit counts towards keeping it (see `createResponseCache`). */
  get(key: string): CachedBody | undefined;
  /** Builds an entry for `text`; stores it under `key` unless caching is off. */
  put(key: string | undefined, text: string, etag?: string, expiresAt?: number): CachedBody;
  /** The body in `encoding`, compressing it once and keeping the result. */
  encode(entry: CachedBody, encoding: Encoding): Promise<Buffer>;
  /** Accounted bytes of all entries: bodies, variants, keys and overhead. */
  readonly bytes: number;
  readonly entries: number;
  /** The bound on `bytes`; 0 when caching is off. */
  readonly maxBytes: number;
}

/**
 * Segmented (SLRU): a new answer enters probation; asked for again while there, it moves to
 * the protected segment. Room is made in probation first, oldest first, so answers asked for
 * once (a flood of page numbers, query strings or slugs) only ever push out each other. The
 * protected segment holds at most `PROTECTED_SHARE` of the bound; past it, its least recently
 * used answer goes back to probation, where one more hit saves it.
 */
export function createResponseCache(maxBytes: number): ResponseCache {
  const probation = new Map<string, CachedBody>();
  const protectedEntries = new Map<string, CachedBody>();
  const protectedMax = Math.floor(maxBytes * PROTECTED_SHARE);
  let probationBytes = 0;
  let protectedBytes = 0;

  // Least recently used, approximately (the "clock" algorithm): a hit only marks its entry;
  // eviction walks from the oldest insertion, gives each marked entry a second chance at the
  // end of the line, and takes the first unmarked one. Moving the entry on every hit instead
  // (delete + set) made a V8 Map a sizeable share of what a cached answer costs.
  const nextProtected = oldestFirst(protectedEntries);
  const nextInProbation = oldestFirst(probation);

  function takeProtectedVictim(): CachedBody | undefined {
    for (let seen = nextProtected(); seen; seen = nextProtected()) {
      const [key, entry] = seen;
      protectedEntries.delete(key);
      if (!entry.used) {
        protectedBytes -= entry.size;
        return entry;
      }
      entry.used = false;
      protectedEntries.set(key, entry);
    }
    return undefined;
  }

  function admitToProbation(entry: CachedBody): void {
    entry.used = false;
    probation.set(entry.key!, entry);
    probationBytes += entry.size;
  }

  function shrinkProtected(): void {
    while (protectedBytes > protectedMax) {
      const demoted = takeProtectedVictim();
      if (!demoted) break;
      admitToProbation(demoted);
    }
  }

  function evictUntil(limit: number): void {
    while (probationBytes + protectedBytes > limit) {
      const oldest = nextInProbation();
      if (oldest) {
        drop(oldest[1]);
      } else if (!takeProtectedVictim()) {
        break;
      }
    }
  }

  function drop(entry: CachedBody): void {
    if (protectedEntries.get(entry.key!) === entry) {
      protectedEntries.delete(entry.key!);
      protectedBytes -= entry.size;
    } else if (probation.get(entry.key!) === entry) {
      probation.delete(entry.key!);
      probationBytes -= entry.size;
    }
  }

  function promote(entry: CachedBody): void {
    probation.delete(entry.key!);
    probationBytes -= entry.size;
    protectedEntries.set(entry.key!, entry);
    protectedBytes += entry.size;
    shrinkProtected();
  }

  return {
    maxBytes,
    get(key) {
      const hot = protectedEntries.get(key);
      if (hot) {
        hot.used = true;
        return hot;
      }
      const entry = probation.get(key);
      if (entry) promote(entry);
      return entry;
    },
    put(key, text, givenTag, expiresAt) {
      const size = key === undefined ? 0 : entryCost(key, Buffer.byteLength(text, 'utf8'));
      const stored = key !== undefined && maxBytes > 0 && size <= maxBytes;
      const body = stored ? ownedBuffer(text) : Buffer.from(text, 'utf8');
      const etag = givenTag ?? strongTag(body);
      const entry: CachedBody = {
        body,
        tags: encodedTags(etag),
        variants: {},
        size: stored ? size : body.length,
        key: stored ? key : undefined,
        used: false,
        expiresAt,
      };
      if (stored) {
        const previous = probation.get(key) ?? protectedEntries.get(key);
        if (previous) drop(previous);
        // Room first, then the entry: the walk must not drop what it makes room for.
        evictUntil(maxBytes - entry.size);
        admitToProbation(entry);
      }
      return entry;
    },
    async encode(entry, encoding) {
      if (encoding === 'identity' || entry.body.length < MIN_COMPRESS_BYTES) return entry.body;
      const known = entry.variants[encoding];
      if (known) return known;
      const compressed = await compress(entry.body, encoding);
      const held = entry.variants[encoding];
      if (held) return held;
      const kept = entry.key === undefined ? compressed : ownedCopy(compressed);
      entry.variants[encoding] = kept;
      const added = kept.length + VARIANT_OVERHEAD_BYTES;
      entry.size += added;
      if (entry.key === undefined) return kept;
      if (protectedEntries.get(entry.key) === entry) {
        entry.used = true;
        protectedBytes += added;
        shrinkProtected();
      } else if (probation.get(entry.key) === entry) {
        probationBytes += added;
      }
      evictUntil(maxBytes);
      return kept;
    },
    get bytes() {
      return probationBytes + protectedBytes;
    },
    get entries() {
      return probation.size + protectedEntries.size;
    },
  };
}

/**
 * The entries of `map` from the oldest on, one per call, where the last call left off; a new
 * walk begins once the last one reached the end. V8 leaves a deleted entry's slot in place
 * until the table is rebuilt, so a walk begun from the start on every eviction stepped over all
 * the slots deleted since: with a full cache of small answers, each new entry then cost several
 * times what it did in a small one (`bench/entry-cost.ts` floods one).
 */
function oldestFirst<K, V>(map: Map<K, V>): () => [K, V] | undefined {
  let walk = map.entries();
  return () => {
    let next = walk.next();
    if (next.done) {
      walk = map.entries();
      next = walk.next();
    }
    return next.done ? undefined : next.value;
  };
}

/**
 * Bytes with a backing store of their own. Node makes small Buffers as slices of a shared 8 KB
 * pool, and a kept slice keeps the whole pool alive: a cache of small answers made between
 * other allocations would hold several times the bytes it counts.
 */
function ownedBuffer(text: string): Buffer {
  const buffer = Buffer.allocUnsafeSlow(Buffer.byteLength(text, 'utf8'));
  buffer.write(text, 0, 'utf8');
  return buffer;
}

function ownedCopy(bytes: Buffer): Buffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes;
  const copy = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(copy);
  return copy;
}
