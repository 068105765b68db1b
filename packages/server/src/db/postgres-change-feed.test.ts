import assert from 'node:assert/strict';
import net from 'node:net';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../test/databases.ts';
import { startTcpProxy } from '../test/tcp-proxy.ts';
import { trusted } from '../test/test-app.ts';
import type { ChangeFeed } from './change-feed.ts';
import { migrateToLatest } from './migrate.ts';
import { connectPostgres } from './postgres.ts';
import { followPostgres } from './postgres-change-feed.ts';

const LEASE_MS = 600;

/** Polls `check` until it holds, failing after `ms`. */
async function eventually(check: () => boolean, what: string, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) assert.fail(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * A TCP proxy to PostgreSQL that passes everything but notifications (NotificationResponse,
 * type 'A') from the server to the client: what a LISTEN behind a transaction-pooling proxy such
 * as PgBouncer amounts to, since its notifications go to some other client's server connection.
 */
async function notificationDroppingProxy(target: URL): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    client.pipe(upstream);
    let pending = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      // Every message from the server is a type byte and a length that counts itself.
      while (pending.length >= 5 && pending.length >= 1 + pending.readInt32BE(1)) {
        const end = 1 + pending.readInt32BE(1);
        if (pending[0] !== 0x41) client.write(pending.subarray(0, end));
        pending = pending.subarray(end);
      }
    });
    for (const [one, other] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      one.on('error', () => other.destroy());
      one.on('close', () => other.destroy());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.host = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return {
    url: url.href,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('the PostgreSQL change feed', { skip: !DIALECTS.includes('postgres') }, () => {
  let database: TestDatabase;
  let url: string;
  const opened: Array<{ close(): Promise<void> }> = [];

  beforeEach(async () => {
    database = await createTestDatabase('postgres');
    await migrateToLatest(database.db, 'postgres');
    url = database.location.databaseUrl!;
  });
  afterEach(async () => {
    for (const handle of opened.splice(0).reverse()) await handle.close();
    await database.close();
  });

  async function follow(serving: boolean, leaseMs = LEASE_MS): Promise<ChangeFeed> {
    const { pool } = connectPostgres(url, 2);
    opened.push({ close: () => pool.end() });
    const feed = await followPostgres({ connectionString: url, pool, serving, leaseMs });
    opened.push(feed);
    return feed;
  }

  /** A raw connection on the feed's channel that records what it hears. */
  async function eavesdrop(): Promise<{ client: pg.Client; channel: string; heard: string[] }> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    opened.push({ close: () => client.end() });
    const { rows } = await client.query<{ schema: string }>('select current_schema() as schema');
    const channel = `folio:${rows[0]!.schema}`;
    const heard: string[] = [];
    client.on('notification', (message) => heard.push(message.payload ?? ''));
    await client.query(`listen ${client.escapeIdentifier(channel)}`);
    return { client, channel, heard };
  }

  test('a serving process trusts its token once its lease is confirmed; a writer-only one never does', async () => {
    const server = await follow(true);
    const cli = await follow(false);
    await trusted(server);
    await cli.settle();
    assert.equal(cli.known(), undefined);
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from folio_instances`.execute(
      database.db,
    );
    assert.equal(rows[0]!.n, 1, 'only the serving process holds a lease');
  });

  test('each write to what answers are built from moves the token before settle() returns; a key being used does not', async () => {
    const server = await follow(true);
    const writer = await follow(false);
    const other = database.connectAgain();
    let last = await trusted(server);
    const moves = async (statement: ReturnType<typeof sql>, expected: boolean, what: string) => {
      await statement.execute(other);
      await writer.settle();
      const now = server.known();
      assert.notEqual(now, undefined, `${what}: still trusted`);
      assert.equal(now !== last, expected, `${what} ${expected ? 'moves' : 'does not move'} the token`);
      last = now!;
    };
    await moves(
      sql`insert into projects (id, name, website_url, articles_path, created_at) values ('p1', 'P', null, '/blog', 0)`,
      true,
      'a new project',
    );
    await moves(
      sql`insert into content_keys (id, project_id, name, prefix, key_hash, created_at) values ('k1', 'p1', 'k', 'fk_', 'h', 0)`,
      true,
      'a new key',
    );
    await moves(sql`update content_keys set last_used_at = 5 where id = 'k1'`, false, 'a key used');
    await moves(sql`update content_keys set revoked_at = 6 where id = 'k1'`, true, 'a revocation');
    await moves(sql`update articles set title = title where false`, true, 'any statement on articles');
    await moves(sql`update projects set content_version = content_version + 1`, true, 'a version bump');
  });

  test('a barrier is acknowledged only after the commits before it moved the token', async () => {
    const server = await follow(true);
    const before = await trusted(server);
    const ear = await eavesdrop();
    const other = database.connectAgain();
    await sql`update projects set name = name`.execute(other);
    await ear.client.query('select pg_notify($1, $2)', [ear.channel, 'b test-writer 7']);
    let tokenAtAck: string | undefined;
    await eventually(() => {
      if (!ear.heard.some((payload) => payload.startsWith('a ') && payload.includes(' test-writer:7')))
        return false;
      tokenAtAck = server.known();
      return true;
    }, 'the acknowledgement');
    assert.notEqual(tokenAtAck, before);
  });

  test('settle() waits for every leased process: until it acknowledges, or until its lease runs out', async () => {
    const writer = await follow(false);
    const ear = await eavesdrop();
    // A process that holds a long lease and acknowledges only when the test says so.
    await ear.client.query(`insert into folio_instances values ('slow', now() + interval '30 seconds')`);
    let settled = false;
    const settling = writer.settle().then(() => {
      settled = true;
    });
    await eventually(() => ear.heard.some((payload) => payload.startsWith('b ')), 'the barrier');
    const [, writerId, barrier] = ear.heard.find((payload) => payload.startsWith('b '))!.split(' ');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(settled, false, 'waits for the unacknowledged process');
    await ear.client.query('select pg_notify($1, $2)', [ear.channel, `a slow ${writerId}:${barrier}`]);
    await settling;

    // A process that never answers: its lease runs out.
    await ear.client.query(`update folio_instances set lease_until = now() + interval '400 milliseconds'`);
    const started = performance.now();
    await writer.settle();
    assert.ok(performance.now() - started >= 300, 'waited for the lease to run out');
    const quick = performance.now();
    await writer.settle();
    assert.ok(performance.now() - quick < 300, 'an expired lease is not waited for');
  });

  test('barriers sent at once are acknowledged each on its own, since they may commit in either order', async () => {
    const writer = await follow(false);
    const ear = await eavesdrop();
    await ear.client.query(`insert into folio_instances values ('slow', now() + interval '30 seconds')`);
    const settled: number[] = [];
    const first = writer.settle().then(() => settled.push(1));
    await new Promise((resolve) => setImmediate(resolve));
    const second = writer.settle().then(() => settled.push(2));
    await eventually(
      () => ear.heard.filter((payload) => payload.startsWith('b ')).length === 2,
      'two barriers',
    );
    const [one, two] = ear.heard
      .filter((payload) => payload.startsWith('b '))
      .map((payload) => payload.split(' '));
    assert.notEqual(one![2], two![2]);
    const ack = (barrier: string[]) =>
      ear.client.query('select pg_notify($1, $2)', [ear.channel, `a slow ${barrier[1]}:${barrier[2]}`]);
    // The later barrier's acknowledgement says nothing about the earlier one.
    await ack(two!);
    await eventually(() => settled.length === 1, 'one settled');
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(settled, [Number(two![2])]);
    await ack(one!);
    await Promise.all([first, second]);
  });

  test('a lost listening connection ends trust at once; trust comes back with a new token', async () => {
    const server = await follow(true);
    const before = await trusted(server);
    const admin = database.connectAgain();
    await sql`select pg_terminate_backend(pid) from pg_stat_activity
              where application_name = 'folio-change-feed' and pid <> pg_backend_pid()`.execute(admin);
    await eventually(() => server.known() === undefined, 'trust ends');
    const after = await trusted(server);
    assert.notEqual(after, before, 'what was kept before the loss is not trusted');
  });

  test('a process that lost its listening connection does not wait out its own lease to settle', async () => {
    // Were its own barrier waited for, settle() would take the whole lease.
    const server = await follow(true, 30_000);
    await trusted(server);
    const admin = database.connectAgain();
    await sql`select pg_terminate_backend(pid) from pg_stat_activity
              where application_name = 'folio-change-feed' and pid <> pg_backend_pid()`.execute(admin);
    await eventually(() => server.known() === undefined, 'trust ends');
    const settled = await Promise.race([
      server.settle().then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 10_000)),
    ]);
    assert.equal(settled, true, 'settled before a third of its lease');
  });

  test('a process whose notifications do not come back takes no lease and warns; writers do not wait for it', async () => {
    const proxy = await notificationDroppingProxy(new URL(url));
    opened.push(proxy);
    const { pool } = connectPostgres(url, 2);
    opened.push({ close: () => pool.end() });
    const warnings: string[] = [];
    // A lease this long would hold every write for a minute, were it taken.
    const pooled = await followPostgres({
      connectionString: proxy.url,
      pool,
      serving: true,
      leaseMs: 60_000,
      probeMs: 300,
      warn: (message) => warnings.push(message),
    });
    opened.push(pooled);
    assert.match(warnings.join('\n'), /did not come back/);
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from folio_instances`.execute(
      database.db,
    );
    assert.equal(rows[0]!.n, 0, 'no lease');
    const writer = await follow(false);
    await writer.settle();
    await pooled.settle();
    assert.equal(pooled.known(), undefined, 'it reads the change token instead of trusting its own');
  });

  test('the listening connection runs one query at a time, even while the database does not answer', async () => {
    // pg queues a query sent while another runs only with a deprecation warning, and pg@9 drops it.
    const target = new URL(url);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    opened.push(proxy);
    const proxied = new URL(url);
    proxied.host = `127.0.0.1:${proxy.port}`;
    const overlaps: string[] = [];
    const running = new Map<pg.Client, number>();
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const listening =
        (this as unknown as { connectionParameters: { application_name?: string } }).connectionParameters
          .application_name === 'folio-change-feed';
      if (!listening) return (query as (...a: unknown[]) => unknown).apply(this, args);
      const before = running.get(this) ?? 0;
      if (before > 0) overlaps.push(String((args[0] as { text?: string }).text ?? args[0]).slice(0, 60));
      running.set(this, before + 1);
      const result = (query as (...a: unknown[]) => Promise<unknown>).apply(this, args);
      return result.finally(() => running.set(this, (running.get(this) ?? 1) - 1));
    } as typeof query;
    try {
      const { pool } = connectPostgres(url, 2);
      opened.push({ close: () => pool.end() });
      const feed = await followPostgres({
        connectionString: proxied.href,
        pool,
        serving: true,
        leaseMs: LEASE_MS,
      });
      opened.push(feed);
      await trusted(feed);
      // Barriers to acknowledge while the lease is renewed.
      const ear = await eavesdrop();
      for (let i = 0; i < 20; i++) {
        await ear.client.query('select pg_notify($1, $2)', [ear.channel, `b test-writer ${i}`]);
        await new Promise((resolve) => setTimeout(resolve, LEASE_MS / 20));
      }
      proxy.freeze();
      await eventually(() => feed.known() === undefined, 'trust ends while frozen');
      // Renewals come due several times over while the one sent is not answered.
      await new Promise((resolve) => setTimeout(resolve, 2 * LEASE_MS));
      proxy.restore();
      await trusted(feed);
    } finally {
      pg.Client.prototype.query = query;
    }
    assert.deepEqual(overlaps, []);
  });

  test('a closed process gives up its lease, so writers stop waiting for it', async () => {
    const server = await follow(true);
    await trusted(server);
    await server.close();
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from folio_instances`.execute(
      database.db,
    );
    assert.equal(rows[0]!.n, 0);
    assert.equal(server.known(), undefined);
  });
});
