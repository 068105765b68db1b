import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isDatabaseStorageRefusal, isDatabaseUnavailable } from './errors.ts';

const failure = (fields: Record<string, unknown>) =>
  Object.assign(new Error(String(fields.message ?? '')), fields);

describe('isDatabaseUnavailable', () => {
  test('a database out of reach, gone or closed to connections: the request may succeed later', () => {
    for (const error of [
      failure({ code: '08006', message: 'connection failure' }),
      failure({ code: '57P01', message: 'terminating connection due to administrator command' }),
      failure({ code: '53300', message: 'sorry, too many clients already' }),
      failure({ code: '55000', message: 'database "folio" is not currently accepting connections' }),
      failure({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:5432' }),
      failure({ message: 'Connection terminated unexpectedly' }),
      failure({ message: 'timeout exceeded when trying to connect' }),
      failure({ message: 'Query read timeout' }),
      failure({ message: 'timeout expired' }),
      failure({ code: 'ERR_SQLITE_ERROR', errcode: 5, message: 'database is locked' }),
    ]) {
      assert.equal(isDatabaseUnavailable(error), true, error.message);
    }
  });

  test('a fault of the request or of Folio itself is not', () => {
    for (const error of [
      failure({ code: '23505', message: 'duplicate key value violates unique constraint' }),
      failure({ code: '42P01', message: 'relation "nope" does not exist' }),
      failure({ code: '55000', message: 'cannot execute this in the current state' }),
      failure({ code: 'ERR_SQLITE_ERROR', errcode: 19, message: 'UNIQUE constraint failed' }),
      new TypeError('Cannot read properties of undefined'),
    ]) {
      assert.equal(isDatabaseUnavailable(error), false, error.message);
    }
    assert.equal(isDatabaseUnavailable(undefined), false);
  });
});

describe('isDatabaseStorageRefusal', () => {
  test('a disk that is full, read-only or failing, and a read-only PostgreSQL', () => {
    for (const error of [
      failure({ code: 'ERR_SQLITE_ERROR', errcode: 13, message: 'database or disk is full' }),
      failure({ code: 'ERR_SQLITE_ERROR', errcode: 778, message: 'disk I/O error' }),
      failure({ code: 'ERR_SQLITE_ERROR', errcode: 8, message: 'attempt to write a readonly database' }),
      failure({ code: '53100', message: 'could not extend file: No space left on device' }),
      failure({ code: '25006', message: 'cannot execute UPDATE in a read-only transaction' }),
    ]) {
      assert.equal(isDatabaseStorageRefusal(error), true, error.message);
    }
  });

  test('a locked file, a constraint or a bug is not', () => {
    for (const error of [
      failure({ code: 'ERR_SQLITE_ERROR', errcode: 5, message: 'database is locked' }),
      failure({ code: 'ERR_SQLITE_ERROR', errcode: 19, message: 'UNIQUE constraint failed' }),
      failure({ code: '23505', message: 'duplicate key value violates unique constraint' }),
      new TypeError('Cannot read properties of undefined'),
    ]) {
      assert.equal(isDatabaseStorageRefusal(error), false, error.message);
    }
    assert.equal(isDatabaseStorageRefusal(null), false);
  });
});
