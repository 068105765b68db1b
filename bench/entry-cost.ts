import { DEFAULT_RESPONSE_CACHE_MB } from '../packages/server/src/config.ts';
import {
  createResponseCache,
  deliveryCacheKey,
  entryCost,
} from '../packages/server/src/http/response-cache.ts';

/*
 * `node --expose-gc --conditions=folio-source bench/entry-cost.ts [entries]`: what one response
 * cache entry really costs beyond the bytes of its body, key and variants, measured as the
 * growth of the process (after full collections) while a cache is filled with entries shaped
 * as the delivery routes make them, divided by their number. Prints JSON: bytes per entry and
 * per compressed variant, as heap + external memory and as RSS. `ENTRY_OVERHEAD_BYTES` and
 * `VARIANT_OVERHEAD_BYTES` in `response-cache.ts` must be at least the larger of the two.
 * Then a flood at the default bound, as the routes use the cache (a miss builds and puts):
 * distinct pages past the end, one hot page asked for every tenth request.
 */

export interface EntryCost {
  entries: number;
  /** Per entry, beyond body and key bytes. */
  entry: { heapAndExternal: number; rss: number };
  /** Per compressed variant, beyond its bytes. */
  variant: { heapAndExternal: number; rss: number };
}

const gc = (globalThis as { gc?: () => void }).gc;

function settle(): NodeJS.MemoryUsage {
  for (let i = 0; i < 3; i++) gc!();
  return process.memoryUsage();
}

const grownBy = (before: NodeJS.MemoryUsage, after: NodeJS.MemoryUsage) => ({
  heapAndExternal: after.heapUsed + after.external - before.heapUsed - before.external,
  rss: after.rss - before.rss,
});

/** An empty page past the end, as the list route answers it: the flood's typical entry. */
function pastTheEnd(page: number): string {
  const pagination = { page, limit: 20, total: 1000, totalPages: 50 };
  return `{"success":true,"data":[],"pagination":${JSON.stringify(pagination)}}`;
}

export async function measureEntryCost(count: number): Promise<EntryCost> {
  if (!gc) throw new Error('run with --expose-gc');
  const projectId = 'prj_0123456789abcdefab12';
  const cache = createResponseCache(Number.MAX_SAFE_INTEGER);
  // Keys as the route makes them: from a parsed number, concatenated per request.
  const keys = Array.from({ length: count }, (_, i) => `list:${i + 2}:20`);
  const bodies = keys.map((_, i) => pastTheEnd(i + 2));
  let counted = 0;
  const before = settle();
  for (const [i, what] of keys.entries()) {
    const key = deliveryCacheKey(projectId, 12, what);
    cache.put(key, bodies[i]!);
    counted += entryCost(key, Buffer.byteLength(bodies[i]!)) - entryCost('', 0);
  }
  const filled = settle();
  const entry = grownBy(before, filled);

  // Variants: bodies large enough to compress, each encoded once. Compressing as many first,
  // into a cache dropped at once, grows the allocator's arenas for brotli's working memory
  // before the baseline: that memory is the compressor's, not the entries'.
  const largeBody = (i: number) => JSON.stringify({ i, text: 'x'.repeat(1500 + (i % 500)) });
  const largeCount = Math.ceil(count / 10);
  const warmUp = createResponseCache(Number.MAX_SAFE_INTEGER);
  for (let i = 0; i < largeCount; i++) await warmUp.encode(warmUp.put(`warm:${i}`, largeBody(i)), 'br');
  const large = Array.from({ length: largeCount }, (_, i) => cache.put(`large:${i}`, largeBody(i)));
  const beforeVariants = settle();
  let variantBytes = 0;
  for (const item of large) variantBytes += (await cache.encode(item, 'br')).length;
  const withVariants = settle();
  const variant = grownBy(beforeVariants, withVariants);
  const perEntry = (grown: number) => Math.round((grown - counted) / count);
  const perVariant = (grown: number) => Math.round((grown - variantBytes) / large.length);
  if (cache.entries !== count + large.length || warmUp.entries !== largeCount)
    throw new Error('entries were dropped');
  return {
    entries: count,
    entry: { heapAndExternal: perEntry(entry.heapAndExternal), rss: perEntry(entry.rss) },
    variant: { heapAndExternal: perVariant(variant.heapAndExternal), rss: perVariant(variant.rss) },
  };
}

export interface CacheFlood {
  requests: number;
  entries: number;
  bytes: number;
  /** Share of the hot page's requests answered from the cache. */
  hotHitRate: number;
}

const DEFAULT_CACHE_BYTES = DEFAULT_RESPONSE_CACHE_MB * 1024 * 1024;

export function simulateFlood(requests: number, maxBytes = DEFAULT_CACHE_BYTES): CacheFlood {
  const cache = createResponseCache(maxBytes);
  const hot = deliveryCacheKey('prj_0123456789abcdefab12', 12, 'list:1:20');
  const hotBody = JSON.stringify({
    data: Array.from({ length: 20 }, (_, i) => ({ i, text: 'x'.repeat(900) })),
  });
  let hotRequests = 0;
  let hotHits = 0;
  for (let i = 0; i < requests; i++) {
    if (i % 10 === 0) {
      hotRequests++;
      if (cache.get(hot)) hotHits++;
      else cache.put(hot, hotBody);
      continue;
    }
    const key = deliveryCacheKey('prj_0123456789abcdefab12', 12, `list:${i + 2}:20`);
    if (!cache.get(key)) cache.put(key, pastTheEnd(i + 2));
  }
  return { requests, entries: cache.entries, bytes: cache.bytes, hotHitRate: hotHits / hotRequests };
}

if (import.meta.main) {
  const count = Number(process.argv[2] ?? 50_000);
  const floodRequests = Number(process.argv[3] ?? 1_000_000);
  const result = { cost: await measureEntryCost(count), simulated: simulateFlood(floodRequests) };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
