import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createFailureStreak } from '../failure-streak.ts';
import type { ChangeFeed } from './change-feed.ts';
import { createAcknowledger, createBarriers, type LiveProcess } from './postgres-feed-barriers.ts';
import { createLease, RENEW_LEASE_SQL } from './postgres-feed-lease.ts';
import { barrierMessage, parseFeedMessage, pingMessage, probeMessage } from './postgres-feed-messages.ts';

// A serving process's lease, and how often it renews it: a writer waits at most this long for a
// process that stopped answering (crashed, paused, cut off from the database).
const DEFAULT_LEASE_MS = 2_000;
const RECONNECT_MS = 1_000;
// How long a process waits at start for its own test notification.
const DEFAULT_PROBE_MS = 5_000;

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
 * This file keeps the listening connection; the channel's messages, the lease and the barriers
 * are modules of their own (`postgres-feed-*.ts`).
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

export async function followPostgres(options: PostgresChangeFeedOptions): Promise<ChangeFeed> {
  const id = randomBytes(8).toString('hex');
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const warn = options.warn ?? (() => {});
  // Cleared if this process's notifications do not come back to it (see `hearsItself`).
  let serving = options.serving;
  let heard: (() => void) | undefined;
  let channel = '';
  let listener: Listener | undefined;
  let closing = false;
  let reconnectTimer: NodeJS.Timeout | undefined;

  // What this process has taken in: the token moves with every change notified.
  let generation = 0;
  let token = 'feed:0';
  const moved = () => {
    generation++;
    token = `feed:${generation}`;
  };
  const reconnects = createFailureStreak({
    failing: (error, tries) =>
      warn(
        `change feed: reconnecting failed (${tries} ${tries === 1 ? 'try' : 'tries'}): ${(error as Error).message}`,
      ),
    recovered: (tries) =>
      warn(`change feed: reconnected after ${tries} failed ${tries === 1 ? 'try' : 'tries'}`),
  });
  const lease = createLease(leaseMs);
  const barriers = createBarriers({
    id,
    leaseMs,
    listening: () => listener !== undefined,
    warn,
    send: async (barrier) => {
      const { rows } = await options.pool.query<{ live: LiveProcess[] }>({
        name: 'folio_barrier',
        text: `select pg_notify($1, $2),
                 coalesce((select json_agg(json_build_object(
                   'id', id, 'ms', ceil(extract(epoch from lease_until - now()) * 1000)))
                   from folio_instances where lease_until > now()), '[]'::json) as live`,
        values: [channel, barrierMessage(id, barrier)],
      });
      return rows[0]?.live ?? [];
    },
  });
  const acknowledge = createAcknowledger(id, (payload) => {
    listener?.query('select pg_notify($1, $2)', [channel, payload]).catch(() => {});
  });

  function receive(payload: string): void {
    const message = parseFeedMessage(payload);
    switch (message.kind) {
      case 'barrier':
        // This process's own barrier needs no notification back: it has just taken it in.
        if (message.from === id) barriers.acknowledged(id, message.barrier);
        else if (serving) acknowledge(message.from, message.barrier);
        return;
      case 'acks':
        for (const { writer, barrier } of message.acks) {
          if (writer === id) barriers.acknowledged(message.from, barrier);
        }
        return;
      case 'ping':
        if (message.from === id) lease.pinged(message.ping);
        return;
      case 'probe':
        if (message.from === id) heard?.();
        return;
      case 'change':
        moved();
    }
  }

  async function renew(): Promise<void> {
    const current = listener;
    // A renewal still on its way (a slow or frozen database): another would only queue behind it.
    if (!current || closing || !serving || current.renewing) return;
    current.renewing = true;
    const ping = lease.renewing();
    try {
      await current.query(RENEW_LEASE_SQL, [id, leaseMs, channel, pingMessage(id, ping)]);
    } catch (error) {
      lease.failed(ping);
      if (listener === current) warn(`change feed: renewing the lease failed: ${(error as Error).message}`);
    } finally {
      current.renewing = false;
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
    // Until it becomes the listener, nothing else queries it: these run one after another.
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
    listener = { client, query: inTurn(client), renewing: false };
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
    await client.query('select pg_notify($1, $2)', [channel, probeMessage(id)]);
    const answer = await back;
    heard = undefined;
    return answer;
  }

  function lost(client: pg.Client): void {
    if (listener?.client !== client) return;
    listener = undefined;
    lease.end();
    moved();
    barriers.settleOwn();
    if (closing) return;
    warn(
      'change feed: the listening connection was lost; reading the change token per batch until it is back',
    );
    scheduleReconnect();
  }

  function scheduleReconnect(): void {
    reconnectTimer = setTimeout(() => {
      connect().then(
        () => reconnects.succeeded(),
        (error: unknown) => {
          reconnects.failed(error);
          if (!closing) scheduleReconnect();
        },
      );
    }, RECONNECT_MS);
    reconnectTimer.unref();
  }

  await connect();
  const renewTimer = serving ? setInterval(() => void renew(), leaseMs / 4) : undefined;
  renewTimer?.unref();

  return {
    known: () => (lease.trusted() ? token : undefined),
    settle: barriers.settle,
    async close() {
      closing = true;
      lease.end();
      clearInterval(renewTimer);
      clearTimeout(reconnectTimer);
      const current = listener;
      listener = undefined;
      if (!current) return;
      if (serving) {
        // Writers stop waiting for this process at once.
        await current.query('delete from folio_instances where id = $1', [id]).catch(() => {});
      }
      await current.client.end().catch(() => {});
    },
  };
}

/** The listening connection, and its queries in turn. */
interface Listener {
  client: pg.Client;
  query: InTurn;
  /** Whether a lease renewal is on its way. */
  renewing: boolean;
}

type InTurn = (text: string, values: unknown[]) => Promise<pg.QueryResult>;

/**
 * Queries on `client` one after another. The acknowledgements and the lease renewals are sent
 * whenever they come up; pg queues a query sent while another runs only with a deprecation
 * warning (pg@9 drops it). Notifications come in whatever runs, so nothing here delays them.
 */
function inTurn(client: pg.Client): InTurn {
  let last: Promise<unknown> = Promise.resolve();
  return (text, values) => {
    const result = last.then(() => client.query(text, values));
    last = result.catch(() => {});
    return result;
  };
}
