import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KyselyPlugin } from 'kysely';
import { buildApp } from '../app.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { resolveAdminCredential } from '../services/admin-auth.ts';
import { createTestDatabase } from '../test/databases.ts';
import { ADMIN_TOKEN, captureLog, LEVELS, TEST_BASE_URL } from '../test/test-app.ts';

test('/readyz during an outage: one warn line when it starts, one when it ends, a plain line per probe', async () => {
  const database = await createTestDatabase('sqlite');
  await migrateToLatest(database.db, 'sqlite');
  let down = false;
  // Every query fails while `down`, as they do when the database cannot be reached.
  const outage: KyselyPlugin = {
    transformQuery(args) {
      if (down) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  const db = database.db.withPlugin(outage);
  const { logger, lines } = captureLog();
  const adminCredential = await resolveAdminCredential({ db, now: Date.now }, ADMIN_TOKEN);
  const app = await buildApp({ db, baseUrl: TEST_BASE_URL, adminCredential, logger });
  try {
    await app.ready();
    const probe = async () => (await app.inject({ method: 'GET', url: '/readyz' })).statusCode;
    assert.equal(await probe(), 200);
    down = true;
    for (let i = 0; i < 10; i++) assert.equal(await probe(), 503);
    down = false;
    assert.equal(await probe(), 200);
    assert.equal(await probe(), 200);

    const warned = lines.filter((line) => line.level >= LEVELS.warn);
    assert.deepEqual(
      warned.map((line) => line.msg),
      ['readiness: the database is not answering', 'readiness: the database answers again'],
    );
    assert.equal(warned[1]!.tries, 10);
    const probes = lines.filter((line) => line.route === '/readyz');
    assert.equal(probes.length, 13);
    assert.ok(probes.every((line) => line.level === LEVELS.info));
    assert.equal(probes.filter((line) => line.status === 503).length, 10);
  } finally {
    await app.close();
    await database.close();
  }
});
