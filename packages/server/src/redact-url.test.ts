import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redactUrl } from './redact-url.ts';

test('a connection URL loses its password for the logs; what is not a URL gives the fallback', () => {
  assert.equal(
    redactUrl('postgres://folio:secret@db:5432/folio', 'postgres'),
    'postgres://folio@db:5432/folio',
  );
  assert.equal(redactUrl('redis://:secret@127.0.0.1:6379', 'redis'), 'redis://127.0.0.1:6379');
  assert.equal(redactUrl('redis://[bad', 'redis'), 'redis');
  assert.equal(
    redactUrl('postgres://db/folio?sslmode=require&password=secret&sslpassword=also', 'postgres'),
    'postgres://db/folio?sslmode=require&password=redacted&sslpassword=redacted',
  );
});
