import { performance } from 'node:perf_hooks';

// The share of a lease a process trusts, against clocks that tick at slightly different rates.
const TRUSTED_SHARE = 0.9;

/**
 * A serving process's trust in its own token. It renews its lease in `folio_instances` through
 * its listening connection, in the same transaction as a ping to itself (`RENEW_LEASE_SQL`).
 * When the ping comes back, every commit before the renewal has been taken in, so the lease is
 * trusted from the moment the renewal was sent. Losing the connection ends trust at once.
 */
export interface Lease {
  /** Whether the process may answer from its token now. */
  trusted(): boolean;
  /** Numbers a renewal about to be sent and notes when. */
  renewing(): number;
  /** The renewal's ping came back: trust runs from when it was sent. */
  pinged(ping: number): void;
  /** The renewal failed: its ping will never come back. */
  failed(ping: number): void;
  /** The listening connection is gone: nothing taken in before can be trusted. */
  end(): void;
}

export function createLease(leaseMs: number): Lease {
  let trustedUntil = 0;
  let count = 0;
  const sentAt = new Map<number, number>();
  return {
    trusted: () => performance.now() < trustedUntil,
    renewing() {
      const ping = ++count;
      sentAt.set(ping, performance.now());
      return ping;
    },
    pinged(ping) {
      const at = sentAt.get(ping);
      if (at === undefined) return;
      for (const earlier of sentAt.keys()) if (earlier <= ping) sentAt.delete(earlier);
      trustedUntil = Math.max(trustedUntil, at + leaseMs * TRUSTED_SHARE);
    },
    failed(ping) {
      sentAt.delete(ping);
    },
    end() {
      trustedUntil = 0;
      sentAt.clear();
    },
  };
}

/** Renews lease `$1` for `$2` ms and pings `$4` on channel `$3`, in one transaction. */
export const RENEW_LEASE_SQL = `with renewed as (
    insert into folio_instances (id, lease_until) values ($1, now() + $2 * interval '1 millisecond')
    on conflict (id) do update set lease_until = excluded.lease_until
    returning id
  )
  select pg_notify($3, $4) from renewed`;
