import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../test/databases.ts';

describe('the change token', () => {
  for (const dialect of DIALECTS) {
    describe(`[${dialect}]`, () => {
      let database: TestDatabase;
      beforeEach(async () => {
        database = await createTestDatabase(dialect);
        await sql`create table token_probe (n integer)`.execute(database.db);
      });
      afterEach(() => database.close());

      test('moves past a commit made through another connection', async () => {
        const before = await database.changeToken();
        assert.equal(typeof before, 'string');
        await sql`insert into token_probe values (1)`.execute(database.connectAgain());
        assert.notEqual(await database.changeToken(), before);
      });

      test('moves past a commit made through the same connection', async () => {
        const before = await database.changeToken();
        await sql`insert into token_probe values (2)`.execute(database.db);
        assert.notEqual(await database.changeToken(), before);
      });

      // SQLite only: PostgreSQL's token without its change feed is the cluster's WAL position,
      // which other databases on the same server move at any time.
      if (dialect === 'sqlite')
        test('stays through a transaction that wrote nothing', async () => {
          await sql`insert into token_probe values (1)`.execute(database.db);
          const before = await database.changeToken();
          await database.db.transaction().execute(async (trx) => {
            await sql`select count(*) from token_probe`.execute(trx);
            await sql`update token_probe set n = 5 where n = 4`.execute(trx);
            await sql`delete from token_probe where n = 4 returning n`.execute(trx);
          });
          assert.equal(await database.changeToken(), before);
          await database.db.transaction().execute(async (trx) => {
            await sql`update token_probe set n = 5 where n = 1`.execute(trx);
          });
          assert.notEqual(await database.changeToken(), before, 'a row changed');
        });
    });
  }
});
