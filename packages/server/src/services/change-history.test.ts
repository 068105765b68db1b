import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { sql } from 'kysely';
import { findChangeHistory } from '../store/change-history.ts';
import { DIALECTS } from '../test/databases.ts';
import { createTestApp, type TestApp } from '../test/test-app.ts';
import { openChangeHistory } from './change-history.ts';

for (const dialect of DIALECTS) {
  describe(`the history of changes [${dialect}]`, () => {
    let t: TestApp;
    beforeEach(async () => {
      t = await createTestApp(dialect);
    });
    afterEach(() => t.close());
    const open = () => openChangeHistory({ db: t.db, now: t.clock.now });

    test('is made once, and every process that opens the database reads the same', async () => {
      const tags = await Promise.all([open(), open(), open()]);
      assert.match(tags[0]!, /^[A-Za-z0-9_-]{8}$/);
      assert.deepEqual(new Set(tags).size, 1);
    });

    test('starts anew for a database found in another place (a dump restored elsewhere)', async () => {
      const tag = await open();
      const stored = (await findChangeHistory(t.db))!;
      // Where a dump was taken: another database's OID on PostgreSQL.
      await t.db
        .updateTable('settings')
        .set({ value: `${tag} 1` })
        .where('key', '=', 'change_history')
        .execute();
      const after = await open();
      assert.notEqual(after, tag);
      const place = (await findChangeHistory(t.db))!.split(' ')[1];
      assert.equal(place, stored.split(' ')[1], 'stored with its own place');
      // SQLite has no place to tell (its backup copies get a history of their own instead).
      assert.equal(place === '', dialect === 'sqlite');
      assert.equal(await open(), after, 'then stays');
    });

    if (dialect === 'postgres') {
      test('starts anew when a dump is restored over the database (--clean: a new settings table)', async () => {
        const tag = await open();
        await sql`alter table settings rename to settings_before`.execute(t.db);
        await sql`create table settings (like settings_before including all)`.execute(t.db);
        await sql`insert into settings select * from settings_before`.execute(t.db);
        await sql`drop table settings_before`.execute(t.db);
        assert.notEqual(await open(), tag);
      });
    }
  });
}
