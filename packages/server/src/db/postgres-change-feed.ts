import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import type { ChangeFeed } from './connect.ts';

// A serving process's lease, and how often it renews it: a writer waits at most this long for a
// process that stopped answering (crashed, paused, cut off from the database).
const DEFAULT_LEASE_MS = 2_000;
// The share of a lease a process trusts, against clocks that tick at slightly different rates.
const TRUSTED_SHARE = 0.9;
const RECONNECT_MS = 1_000;
// How long a process waits at start for its own test notification.
const DEFAULT_PROBE_MS = 5_000;
// Acknowledgements per notification, well inside the 8,000-byte payload limit.
const ACKS_PER_NOTIFICATION = 100;

/**
 * Cached answers on several server processes without a database read per request.
 *
 * Each process keeps one connection that LISTENs on `folio:<schema>`, where the triggers of
 * migration 0006 notify every commit that changes what delivery answers are built from.
 * PostgreSQL delivers notifications in commit order. Each notification moves this process's
 * token, and with it every cached answer and key check keyed by the old one.
 *
 * A notification can still be on its way when the writer's client already has its answer. So a
 * writer calls `settle()` before it answers, and the webhook dispatcher before it sends:
 * - `settle()` notifies a barrier, then waits until every serving process listed in
 *   `folio_instances` acknowledges it. An acknowledgement means that process has taken in every
 *   commit before the barrier.
 * - A process that does not acknowledge is waited for until its lease runs out. A lease is
 *   trusted only within the process's own lease, so by then it has stopped trusting its token.
 *
 * A serving process trusts its token only while it holds a lease: it renews the lease through its
 * listening connection, in the same transaction as a ping to itself. When that ping comes back,
 * every commit before the renewal has been taken in, and the lease is trusted from the moment the
 * renewal was sent. If the connection drops, trust ends at once. Until it is back, `known()` says
 * nothing, and callers read the change token from the database on every batch, as without a feed.
 *
 * Proof sketch: a process answers from its token at time t after a writer's answer. Take the
 * renewal R behind its trust. If R committed after the write, R's ping, and thus the write, was
 * taken in before t. If R committed before, the barrier saw R's lease, which lasts past t. So the
 * writer, which answered before t, had this process's acknowledgement.
 */
export interface PostgresChangeFeedOptions {
  connectionString: string;
  /** The application's pool, which sends the barriers. */
  pool: pg.Pool;
  /** A serving process holds a lease and acknowledges barriers; a CLI or worker only settles. */
  serving: boolean;
  leaseMs?: number;
  /** How long to wait for the start-up test notification (see `hearsItself`). */
  probeMs?: number;
  /** Reports a lost or failing listening connection (a logger's `warn`). */
  warn?: (message: string) => void;
}

interface AckWait {
  pending: Set<string>;
  done(): void;
}

interface LiveProcess {
  id: string;
  ms: number;
}

export async function followPostgres(options: PostgresChangeFeedOptions): Promise<ChangeFeed> {
  const id = randomBytes(8).toString('hex');
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const warn = options.warn ?? (() => {});
  // Cleared if this process's notifications do not come back to it (see `hearsItself`).
  let serving = options.serving;
  let heard: (() => void) | undefined;
  let channel = '';
  let listener: pg.Client | undefined;
  let closing = false;
  let reconnectTimer: NodeJS.Timeout | undefined;

  // What this process has taken in.
  let generation = 0;
  let token = 'feed:0';
  let trustedUntil = 0;
  let pingCount = 0;
  const pingsSentAt = new Map<number, number>();
  // `writer:barrier` for each barrier taken in since the last acknowledgement was sent.
  let acksToSend: string[] = [];
  let acksScheduled = false;

  // What this process waits for as a writer.
  let barrierCount = 0;
  // Acknowledgements that came before the barrier's own query answered which processes to wait for.
  const earlyAcks = new Map<number, Set<string>>();
  const ackWaits = new Map<number, AckWait>();
  let settleWaiters: Array<() => void> = [];
  let barrierScheduled = false;

  function moved(): void {
    generation++;
    token = `feed:${generation}`;
  }

  function receive(payload: string): void {
    const [kind, from, ...rest] = payload.split(' ');
    if (kind === 'b' && from !== undefined) {
      // This process's own barrier needs no notification back: it has just taken it in.
      if (from === id) acknowledged(id, Number(rest[0]));
      else if (serving) queueAck(from, Number(rest[0]));
    } else if (kind === 'a' && from !== undefined) {
      for (const part of rest) {
        const [writer, barrier] = part.split(':');
        if (writer === id) acknowledged(from, Number(barrier));
      }
    } else if (kind === 'p') {
      if (from === id) pinged(Number(rest[0]));
    } else if (kind === 'h') {
      if (from === id) heard?.();
    } else {
      // 'c' from the triggers, or anything unknown: assume content changed.
      moved();
    }
  }

  function pinged(ping: number): void {
    const sentAt = pingsSentAt.get(ping);
    if (sentAt === undefined) return;
    for (const earlier of pingsSentAt.keys()) if (earlier <= ping) pingsSentAt.delete(earlier);
    trustedUntil = Math.max(trustedUntil, sentAt + leaseMs * TRUSTED_SHARE);
  }

  function queueAck(writer: string, barrier: number): void {
    acksToSend.push(`${writer}:${barrier}`);
    if (acksScheduled) return;
    acksScheduled = true;
    // Every barrier taken in this turn is acknowledged in one notification.
    setImmediate(sendAcks);
  }

  function sendAcks(): void {
    acksScheduled = false;
    const parts = acksToSend;
    acksToSend = [];
    const client = listener;
    if (!client) return;
    for (let i = 0; i < parts.length; i += ACKS_PER_NOTIFICATION) {
      const payload = `a ${id} ${parts.slice(i, i + ACKS_PER_NOTIFICATION).join(' ')}`;
      client.query('select pg_notify($1, $2)', [channel, payload]).catch(() => {});
    }
  }

  function acknowledged(from: string, barrier: number): void {
    const wait = ackWaits.get(barrier);
    if (!wait) {
      earlyAcks.get(barrier)?.add(from);
      return;
    }
    wait.pending.delete(from);
    if (wait.pending.size === 0) wait.done();
  }

  async function renew(): Promise<void> {
    const client = listener;
    if (!client || closing || !serving) return;
    const ping = ++pingCount;
    pingsSentAt.set(ping, performance.now());
    try {
      await client.query(
        `with renewed as (
           insert into folio_instances (id, lease_until) values ($1, now() + $2 * interval '1 millisecond')
           on conflict (id) do update set lease_until = excluded.lease_until
           returning id
         )
         select pg_notify($3, $4) from renewed`,
        [id, leaseMs, channel, `p ${id} ${ping}`],
      );
    } catch (error) {
      pingsSentAt.delete(ping);
      if (listener === client) warn(`change feed: renewing the lease failed: ${(error as Error).message}`);
    }
  }

  async function connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: options.connectionString,
      application_name: 'folio-change-feed',
    });
    // An error ends the connection; 'end' handles both.
    client.on('error', () => {});
    client.on('notification', (message) => receive(message.payload ?? ''));
    client.on('end', () => lost(client));
    await client.connect();
    try {
      const { rows } = await client.query<{ schema: string }>('select current_schema() as schema');
      channel = `folio:${rows[0]!.schema}`;
      await client.query(`listen ${client.escapeIdentifier(channel)}`);
      if (serving && !(await hearsItself(client))) {
        serving = false;
        warn(
          'change feed: a notification sent on the listening connection did not come back (a transaction-pooling proxy?); this process reads the change token per batch of requests instead',
        );
      }
      if (serving) {
        await client.query("delete from folio_instances where lease_until < now() - interval '1 hour'");
      }
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    listener = client;
    // Commits before the LISTEN took effect were never notified here.
    moved();
    if (serving) void renew();
  }

  /**
   * Whether a notification sent on `client` comes back to it. Behind a proxy that pools
   * transactions, LISTEN and the notification may run on different server connections. Such a
   * process must not hold a lease: it would never acknowledge, and writers would wait out its
   * lease on every write.
   */
  async function hearsItself(client: pg.Client): Promise<boolean> {
    const back = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), options.probeMs ?? DEFAULT_PROBE_MS);
      heard = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
    await client.query('select pg_notify($1, $2)', [channel, `h ${id}`]);
    const answer = await back;
    heard = undefined;
    return answer;
  }

  function lost(client: pg.Client): void {
    if (listener !== client) return;
    listener = undefined;
    trustedUntil = 0;
    pingsSentAt.clear();
    moved();
    // Without a connection this process trusts no token, and the next one it trusts comes after
    // a new LISTEN: its own barriers need not wait for a notification that cannot come.
    for (const barrier of [...ackWaits.keys()]) acknowledged(id, barrier);
    if (closing) return;
    warn(
      'change feed: the listening connection was lost; reading the change token per batch until it is back',
    );
    scheduleReconnect();
  }

  function scheduleReconnect(): void {
    reconnectTimer = setTimeout(() => {
      connect().catch((error: unknown) => {
        warn(`change feed: reconnecting failed: ${(error as Error).message}`);
        if (!closing) scheduleReconnect();
      });
    }, RECONNECT_MS);
    reconnectTimer.unref();
  }

  function settle(): Promise<void> {
    return new Promise((resolve) => {
      settleWaiters.push(resolve);
      scheduleBarrier();
    });
  }

  function scheduleBarrier(): void {
    if (barrierScheduled) return;
    barrierScheduled = true;
    // The writers of one turn share a barrier.
    setImmediate(() => void sendBarrier());
  }

  // Barriers do not wait for each other: each is acknowledged on its own, since two sent at once
  // may commit in either order.
  async function sendBarrier(): Promise<void> {
    barrierScheduled = false;
    const waiters = settleWaiters;
    settleWaiters = [];
    const barrier = ++barrierCount;
    const early = new Set<string>();
    earlyAcks.set(barrier, early);
    let acks: Promise<void>;
    try {
      // A connection lost under the barrier (a failover) is common enough to try once more
      // before waiting out every lease: a second barrier is as good as the first.
      const live = await queryBarrier(barrier).catch(() => queryBarrier(barrier));
      acks = awaitAcks(
        barrier,
        live.filter((process) => !early.has(process.id) && !(process.id === id && listener === undefined)),
      );
    } catch (error) {
      // Every lease that could still be trusted runs out within one lease.
      warn(`change feed: the barrier failed (${(error as Error).message}); waiting out the leases`);
      acks = delay(leaseMs);
    }
    earlyAcks.delete(barrier);
    await acks;
    for (const resolve of waiters) resolve();
  }

  async function queryBarrier(barrier: number): Promise<LiveProcess[]> {
    const { rows } = await options.pool.query<{ live: LiveProcess[] }>({
      name: 'folio_barrier',
      text: `select pg_notify($1, $2),
               coalesce((select json_agg(json_build_object(
                 'id', id, 'ms', ceil(extract(epoch from lease_until - now()) * 1000)))
                 from folio_instances where lease_until > now()), '[]'::json) as live`,
      values: [channel, `b ${id} ${barrier}`],
    });
    return rows[0]?.live ?? [];
  }

  function awaitAcks(barrier: number, waiting: LiveProcess[]): Promise<void> {
    if (waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const wait: AckWait = {
        pending: new Set(waiting.map((process) => process.id)),
        done: () => {
          clearTimeout(timer);
          ackWaits.delete(barrier);
          resolve();
        },
      };
      // Until the last of their leases runs out, at the latest.
      const timer = setTimeout(wait.done, Math.max(...waiting.map((process) => process.ms)));
      ackWaits.set(barrier, wait);
    });
  }

  await connect();
  const renewTimer = serving ? setInterval(() => void renew(), leaseMs / 4) : undefined;
  renewTimer?.unref();

  return {
    known: () => (performance.now() < trustedUntil ? token : undefined),
    settle,
    async close() {
      closing = true;
      trustedUntil = 0;
      clearInterval(renewTimer);
      clearTimeout(reconnectTimer);
      const client = listener;
      listener = undefined;
      if (!client) return;
      if (serving) {
        // Writers stop waiting for this process at once.
        await client.query('delete from folio_instances where id = $1', [id]).catch(() => {});
      }
      await client.end().catch(() => {});
    },
  };
}
