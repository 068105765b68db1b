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
    });
  }
});
