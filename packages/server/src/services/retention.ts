import { type Periodic, runPeriodically } from './periodic.ts';

/**
 * History kept for a while and then pruned: the changes feed's tombstones
 * (FOLIO_CHANGES_RETENTION) and the webhook log (FOLIO_WEBHOOK_RETENTION).
 */

/**
 * Runs `prune` now and then, off the request path: every quarter of `retentionMs`, at most
 * every ten minutes. Writers never wait for it beyond one small batch.
 */
export function startPruning(
  retentionMs: number,
  prune: () => Promise<unknown>,
  onError: (error: unknown) => void,
): Periodic {
  return runPeriodically(Math.min(Math.max(retentionMs / 4, 1000), 600_000), prune, onError);
}

/** Runs `batch` until it deletes fewer than `size` rows; returns how many it deleted in all. */
export async function inBatches(size: number, batch: (size: number) => Promise<number>): Promise<number> {
  let pruned = 0;
  for (;;) {
    const count = await batch(size);
    pruned += count;
    if (count < size) return pruned;
  }
}
