import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../test/databases.ts';
import { isDatabaseUnavailable } from './errors.ts';
import { withPatience } from './patience.ts';
import { connectPostgres } from './postgres.ts';

describe('the PostgreSQL pool', { skip: !DIALECTS.includes('postgres') }, () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase('postgres');
  });
  after(() => database.close());

  test('a request waits for a busy pool past the connect bound, rather than failing as unreachable', async () => {
    // One connection, held for longer than a connection attempt may take (5 s).
    const { pool } = connectPostgres(database.location.databaseUrl!, 1, 15_000);
    try {
      const held = pool.query('select pg_sleep(6)');
      const waited = pool.query('select 1 as one');
      await held;
      assert.equal((await waited).rows[0].one, 1);
    } finally {
      await pool.end();
    }
  });

  test('a database that does not answer a connection attempt still fails fast, as unreachable', async () => {
    // A port that accepts nothing: the connect bound, not the 15 s pool wait, ends the attempt.
    const url = new URL(database.location.databaseUrl!);
    url.host = '10.255.255.1:5432';
    const { pool } = connectPostgres(url.href, 1, 15_000);
    const started = Date.now();
    try {
      const error = await pool.query('select 1').then(
        () => undefined,
        (failure: unknown) => failure,
      );
      assert.ok(isDatabaseUnavailable(error), String(error));
      assert.ok(Date.now() - started < 12_000, `failed after ${Date.now() - started} ms`);
    } finally {
      await pool.end();
    }
  });

  test('in a patience scope, waits share one bound that every answer restores', async () => {
    const { pool } = connectPostgres(database.location.databaseUrl!, 1, 1_500);
    try {
      // Progress: two statements of a second each, 2 s in all, past the 1.5 s bound.
      await withPatience(async () => {
        await pool.query('select pg_sleep(1)');
        await pool.query('select pg_sleep(1)');
      });
      // No progress: the only connection is held for 3 s; the scope's wait for it ends at 1.5 s,
      // where a wait for a pooled connection alone may last up to 5 s.
      const holder = await pool.connect();
      const held = new Promise((resolve) => setTimeout(resolve, 3_000)).then(() => holder.release());
      const started = performance.now();
      const error = await withPatience(() => pool.query('select 1')).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      const waited = performance.now() - started;
      assert.ok(isDatabaseUnavailable(error), String(error));
      assert.ok(waited >= 1_400 && waited < 2_900, `gave up after ${Math.round(waited)} ms`);
      await held;
      // The connection that came late went back to the pool.
      assert.equal((await pool.query('select 1 as one')).rows[0].one, 1);
    } finally {
      await pool.end();
    }
  });

  test('a statement refused for spent patience takes its connection with it, open transaction and all', async () => {
    const { pool } = connectPostgres(database.location.databaseUrl!, 1, 1_000);
    try {
      await pool.query('create table patience_spent (n integer)');
      await withPatience(async () => {
        const client = await pool.connect();
        await client.query('begin');
        await client.query('insert into patience_spent values (1)');
        // No answer for longer than the bound: the ROLLBACK is refused unsent.
        await new Promise((resolve) => setTimeout(resolve, 1_100));
        await assert.rejects(client.query('rollback'), /Query read timeout/);
        client.release();
      });
      // Had the connection gone back with its transaction open, this would commit the insert.
      await pool.query('commit').catch(() => {});
      const { rows } = await pool.query('select count(*)::int as n from patience_spent');
      assert.equal(rows[0].n, 0);
    } finally {
      await pool.end();
    }
  });
});
