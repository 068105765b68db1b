import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { DIALECTS } from '../test/databases.ts';
import { createTestApp, type TestApp } from '../test/test-app.ts';
import { createChangeWatch } from './change-watch.ts';
import { requireKeyProject } from './content-keys.ts';
import { createKeyChecks } from './key-checks.ts';
import { hashToken } from './tokens.ts';

for (const dialect of DIALECTS) {
  describe(`content key checks [${dialect}]`, () => {
    let t: TestApp;
    let projectId: string;
    let key: string;
    beforeEach(async () => {
      t = await createTestApp(dialect);
      projectId = (await t.createProject()).id;
      key = await t.createKey(projectId);
    });
    afterEach(() => t.close());

    const deps = () => ({ db: t.db, now: t.clock.now });
    // Removes the key behind the checks' back: only a lookup can notice.
    const deleteKey = () => t.db.deleteFrom('content_keys').where('key_hash', '=', hashToken(key)).execute();

    test('a check is reused while the change token stays, and made again when it moves', async () => {
      let token = 'a';
      const checks = createKeyChecks(
        deps(),
        createChangeWatch(() => token),
      );
      await checks.identify(key, projectId);
      await deleteKey();
      assert.equal((await checks.identify(key, projectId)).project.id, projectId, 'reused');
      token = 'b';
      await assert.rejects(checks.identify(key, projectId), { code: 'unauthorized' });
    });

    test('a check is made again after a minute, which also records lastUsedAt', async () => {
      const checks = createKeyChecks(
        deps(),
        createChangeWatch(() => 'fixed'),
      );
      const first = await checks.identify(key, projectId);
      t.clock.advance(30_000);
      assert.equal((await checks.identify(key, projectId)).lastUsedAt, first.lastUsedAt);
      t.clock.advance(31_000);
      assert.equal((await checks.identify(key, projectId)).lastUsedAt, t.clock.now());
      await deleteKey();
      t.clock.advance(61_000);
      await assert.rejects(checks.identify(key, projectId), { code: 'unauthorized' });
    });

    test('with the real token, a revocation here or by another connection is seen at once', async () => {
      const checks = createKeyChecks(deps(), createChangeWatch(t.database.changeToken));
      await checks.identify(key, projectId);
      await checks.identify(key, projectId);
      const elsewhere = t.database.connectAgain();
      await elsewhere
        .updateTable('content_keys')
        .set({ revoked_at: t.clock.now() })
        .where('key_hash', '=', hashToken(key))
        .execute();
      await assert.rejects(checks.identify(key, projectId), { code: 'unauthorized' });
      const second = await t.createKey(projectId);
      await checks.identify(second, projectId);
      const keys = (await t.admin('GET', `/admin/v1/projects/${projectId}/keys`)).json().data;
      await t.admin('DELETE', `/admin/v1/projects/${projectId}/keys/${keys[0].id}`);
      await assert.rejects(checks.identify(second, projectId), { code: 'unauthorized' });
    });

    test('a reused check still names its own project, and failures are never kept', async () => {
      const checks = createKeyChecks(
        deps(),
        createChangeWatch(() => 'fixed'),
      );
      const other = await t.createProject({ name: 'Other' });
      await checks.identify(key, projectId);
      const elsewhere = await checks.identify(key, other.id);
      assert.equal(elsewhere.project.id, projectId, 'the key names its own project');
      assert.throws(() => requireKeyProject(elsewhere, other.id), { code: 'forbidden' });
      const unknown = `${key.slice(0, -4)}zzzz`;
      await assert.rejects(checks.identify(unknown, projectId), { code: 'unauthorized' });
      await assert.rejects(checks.identify(undefined, projectId), { code: 'unauthorized' });
    });
  });
}
