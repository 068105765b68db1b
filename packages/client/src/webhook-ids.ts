/**
 * Where a receiver remembers the `webhook-id`s it handled. Folio delivers at least once, so the
 * same id can arrive again. An id is added once its event was handled. A `Set` fits; so does
 * a shared store (async methods are awaited) when several processes receive, though only an
 * atomic check-and-add there stops two processes handling the same id at the same moment.
 */
export interface WebhookIdStore {
  has(id: string): boolean | Promise<boolean>;
  add(id: string): unknown;
}

/**
 * An in-memory id store that forgets the oldest ids beyond `limit`, so memory stays bounded.
 * @example
 * const seenIds = createMemoryIdStore(5_000);
 */
export function createMemoryIdStore(limit = 10_000): WebhookIdStore {
  const ids = new Set<string>();
  return {
    has: (id) => ids.has(id),
    add(id) {
      ids.add(id);
      // A Set iterates in insertion order, so the first value is the oldest.
      while (ids.size > limit) ids.delete(ids.values().next().value!);
    },
  };
}
