/**
 * History kept for a while and then pruned: the changes feed's tombstones
 * (FOLIO_CHANGES_RETENTION) and the webhook log (FOLIO_WEBHOOK_RETENTION).
 */

export interface Pruning {
  stop(): Promise<void>;
}

/**
 * Runs `prune` now and then, off the request path: every quarter of `retentionMs`, at most
 * every ten minutes. Writers never wait for it beyond one small batch.
 */
export function startPruning(
  retentionMs: number,
  prune: () => Promise<unknown>,
  onError: (error: unknown) => void,
): Pruning {
  const every = Math.min(Math.max(retentionMs / 4, 1000), 600_000);
  // One run at a time: a slow database must not pile runs up behind each other.
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    running ??= prune()
      .then(() => {}, onError)
      .finally(() => {
        running = undefined;
      });
  }, every);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      return running ?? Promise.resolve();
    },
  };
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
