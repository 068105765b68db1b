import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { resolveAdminCredential, verifyAdminToken } from '../services/admin-auth.ts';
import { cliEnv, runFolio } from '../test/cli-runner.ts';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../test/databases.ts';

for (const dialect of DIALECTS) {
  describe(`folio admin-token reset [${dialect}]`, () => {
    let database: TestDatabase;
    let env: Record<string, string>;
    beforeEach(async () => {
      database = await createTestDatabase(dialect);
      env = cliEnv(database);
      assert.equal((await runFolio(env, ['migrate'])).code, 0);
    });
    afterEach(() => database.close());

    const folio = (...argv: string[]) => runFolio(env, argv);
    // What a server does when it starts without FOLIO_ADMIN_TOKEN.
    const startCredential = () => resolveAdminCredential({ db: database.db, now: Date.now }, undefined);

    test('a new token replaces the lost one at the next start; the old one stops working', async () => {
      const lost = (await startCredential()).generatedToken!;
      const reset = await folio('admin-token', 'reset', '--json');
      assert.equal(reset.code, 0, reset.stderr);
      const { token } = reset.json();
      assert.match(token, /^folio_admin_[A-Za-z0-9_-]{43}$/);
      assert.notEqual(token, lost);

      const restarted = await startCredential();
      assert.equal(restarted.generatedToken, undefined, 'the restart prints no other token');
      verifyAdminToken(restarted, token);
      assert.throws(() => verifyAdminToken(restarted, lost), { code: 'unauthorized' });

      const human = await folio('admin-token', 'reset');
      assert.match(
        human.stdout,
        /^New admin token \(shown once; only its hash is stored\):\n\n {2}folio_admin_\S+\n\nStored in \S+\. Restart the servers/,
      );
      assert.equal(human.stderr, '');
    });

    test('on a database that never started a server it sets the first token', async () => {
      const { token } = (await folio('admin-token', 'reset', '--json')).json();
      const started = await startCredential();
      assert.equal(started.generatedToken, undefined);
      verifyAdminToken(started, token);
    });

    if (dialect === 'sqlite') {
      test('where there is no database it makes none: the server reads another', async () => {
        const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-elsewhere-'));
        try {
          const run = await runFolio({}, ['admin-token', 'reset'], { cwd: elsewhere });
          assert.equal(run.code, 2, run.stdout);
          const file = path.join(elsewhere, 'data', 'folio.sqlite');
          assert.equal(
            run.stderr,
            `folio admin-token reset: there is no Folio database at ${file}: set FOLIO_DATA_DIR or DATABASE_URL as the server has them\n`,
          );
          assert.equal(run.stdout, '');
          assert.deepEqual(fs.readdirSync(elsewhere), [], 'nothing was made');
        } finally {
          fs.rmSync(elsewhere, { recursive: true, force: true });
        }
      });
    }

    test('with FOLIO_ADMIN_TOKEN set it warns that servers use that one', async () => {
      env.FOLIO_ADMIN_TOKEN = 'a-configured-admin-token';
      const run = await folio('admin-token', 'reset');
      assert.equal(run.code, 0);
      assert.match(run.stderr, /FOLIO_ADMIN_TOKEN is set; servers started with it use it/);
    });
  });
}
