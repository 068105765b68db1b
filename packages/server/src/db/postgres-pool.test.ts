import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../test/databases.ts';
import { isDatabaseUnavailable } from './errors.ts';
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
});
