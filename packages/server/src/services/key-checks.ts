import type { ChangeWatch } from './change-watch.ts';
import { type AuthenticatedKey, identifyContentKey } from './content-keys.ts';
import type { ServiceDeps } from './deps.ts';

// A key is checked against the database again after this long, which also keeps its lastUsedAt
// (a minute's resolution, see content-keys.ts) current.
const RECHECK_MS = 60_000;
const MAX_KEYS = 10_000;

/** A key's check, and the change token read before it: good until anything is committed. */
export interface KeyCheck extends AuthenticatedKey {
  token: string;
}

/**
 * Delivery authentication that skips the key lookup while nothing has been written: a check is
 * reused for as long as the database's change token has not moved since it was made. A
 * revocation, a publish or another process's write moves the token, and the next request checks
 * again. Failed checks are never kept.
 */
export interface KeyChecks {
  /** The key `bearer` is, for a request on `projectId`; see `identifyContentKey`. */
  identify(bearer: string | undefined, projectId: string): Promise<AuthenticatedKey>;
  /**
   * The last check of `bearer` if it is recent, for a caller that confirms itself that the
   * token has not moved since (the fast path does, for a whole batch at once).
   */
  recent(bearer: string): KeyCheck | undefined;
}

export function createKeyChecks(deps: ServiceDeps, watch: ChangeWatch | undefined): KeyChecks {
  // Keyed by the key itself, not its hash: this map lives only in memory, and hashing would cost
  // as much as the rest of a cached answer.
  const checks = new Map<string, KeyCheck>();

  function recent(bearer: string): KeyCheck | undefined {
    const check = checks.get(bearer);
    return check && deps.now() - check.lastUsedAt < RECHECK_MS ? check : undefined;
  }

  return {
    recent,
    async identify(bearer, projectId) {
      if (!watch || !bearer) return identifyContentKey(deps, bearer, projectId);
      // Read before the lookup: a write racing the lookup leaves the kept check already stale.
      const token = await watch.current();
      const known = recent(bearer);
      if (token !== undefined && known?.token === token && known.project.id === projectId) return known;
      const key = await identifyContentKey(deps, bearer, projectId);
      // Only a use is kept: a key sent to another project was not used, and is looked up again.
      if (token !== undefined && key.project.id === projectId) {
        if (checks.size >= MAX_KEYS) checks.clear();
        checks.set(bearer, { ...key, token });
      }
      return key;
    },
  };
}
