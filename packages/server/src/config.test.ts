import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig, parseDuration } from './config.ts';

describe('configuration', () => {
  test('defaults follow the contract', () => {
    const config = loadConfig({}, '/srv/folio');
    assert.equal(config.port, 8080);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.dataDir, '/srv/folio/data');
    assert.equal(config.baseUrl, 'http://localhost:8080');
    assert.equal(config.adminToken, undefined);
    assert.equal(config.demo, true);
    assert.equal(config.webhookAllowPrivate, false);
    assert.deepEqual(config.webhookRetryScheduleMs, [5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 36e6]);
    assert.equal(config.webhookTimeoutMs, 10_000);
    assert.equal(config.responseCacheBytes, 64 * 1024 * 1024);
    assert.equal(config.rateLimit, undefined);
    assert.deepEqual(config.authFailureLimit, { points: 30, seconds: 60 });
    assert.equal(config.redisUrl, undefined);
    assert.equal(config.trustProxy, false);
    assert.equal(loadConfig({ FOLIO_RESPONSE_CACHE_MB: '0' }).responseCacheBytes, 0);
  });

  test('rate limits: requests per window, off, and a Redis URL', () => {
    assert.deepEqual(loadConfig({ FOLIO_RATE_LIMIT: '600/10s' }).rateLimit, { points: 600, seconds: 10 });
    assert.deepEqual(loadConfig({ FOLIO_RATE_LIMIT: '100/1s' }).rateLimit, { points: 100, seconds: 1 });
    assert.deepEqual(loadConfig({ FOLIO_RATE_LIMIT: '5000/1m' }).rateLimit, { points: 5000, seconds: 60 });
    assert.equal(loadConfig({ FOLIO_RATE_LIMIT: 'off' }).rateLimit, undefined);
    assert.deepEqual(loadConfig({ FOLIO_AUTH_FAILURE_LIMIT: '5/1h' }).authFailureLimit, {
      points: 5,
      seconds: 3600,
    });
    assert.equal(
      loadConfig({ FOLIO_REDIS_URL: 'redis://127.0.0.1:6379' }).redisUrl,
      'redis://127.0.0.1:6379',
    );
    for (const [name, value] of [
      ['FOLIO_RATE_LIMIT', '600'],
      ['FOLIO_RATE_LIMIT', '0/10s'],
      ['FOLIO_RATE_LIMIT', '10/0s'],
      ['FOLIO_AUTH_FAILURE_LIMIT', 'off'],
      ['FOLIO_REDIS_URL', 'http://x'],
      ['FOLIO_REDIS_URL', 'redis://[bad'],
    ] as const) {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (error: unknown) => error instanceof ConfigError && error.problems[0]!.startsWith(`${name}=`),
        `${name}=${value}`,
      );
    }
  });

  for (const [name, field] of [
    ['FOLIO_CHANGES_RETENTION', 'changesRetentionMs'],
    ['FOLIO_WEBHOOK_RETENTION', 'webhookRetentionMs'],
  ] as const) {
    test(`${name}: 30d by default; 2s, 15m, 12h parse; nonsense is refused`, () => {
      assert.equal(loadConfig({})[field], 30 * 86_400_000);
      assert.equal(loadConfig({ [name]: '2s' })[field], 2_000);
      assert.equal(loadConfig({ [name]: '15m' })[field], 900_000);
      assert.equal(loadConfig({ [name]: '12h' })[field], 43_200_000);
      for (const value of ['forever', '0s', '10ms']) {
        assert.throws(
          () => loadConfig({ [name]: value }),
          (error: unknown) => error instanceof ConfigError && error.problems[0]!.startsWith(`${name}=`),
          value,
        );
      }
    });
  }

  test('LOG_LEVEL: info by default; a level pino knows, in any case; anything else is refused', () => {
    assert.equal(loadConfig({}).logLevel, 'info');
    assert.equal(loadConfig({ LOG_LEVEL: 'WARN' }).logLevel, 'warn');
    assert.throws(
      () => loadConfig({ LOG_LEVEL: 'verbose' }),
      (error: unknown) =>
        error instanceof ConfigError && error.problems[0]!.startsWith('LOG_LEVEL="verbose"'),
    );
  });

  test('FOLIO_DATABASE_TIMEOUT: unset leaves the default; a duration of 100ms or more parses', () => {
    assert.equal(loadConfig({}).databaseTimeoutMs, undefined);
    assert.equal(loadConfig({ FOLIO_DATABASE_TIMEOUT: '2s' }).databaseTimeoutMs, 2_000);
    assert.equal(loadConfig({ FOLIO_DATABASE_TIMEOUT: '250ms' }).databaseTimeoutMs, 250);
    assert.equal(loadConfig({ FOLIO_DATABASE_TIMEOUT: '24d' }).databaseTimeoutMs, 24 * 86_400_000);
    // Past 2^31-1 ms a Node timer fires at once: every query would fail as timed out.
    for (const value of ['never', '0s', '10ms', '25d', '365d']) {
      assert.throws(
        () => loadConfig({ FOLIO_DATABASE_TIMEOUT: value }),
        (error: unknown) =>
          error instanceof ConfigError && error.problems[0]!.startsWith('FOLIO_DATABASE_TIMEOUT='),
        value,
      );
    }
  });

  test('FOLIO_WEBHOOK_TIMEOUT past what a timer can wait (24.8 days) is refused, not a timeout at once', () => {
    assert.equal(loadConfig({ FOLIO_WEBHOOK_TIMEOUT: '24d' }).webhookTimeoutMs, 24 * 86_400_000);
    for (const value of ['25d', '365d']) {
      assert.throws(
        () => loadConfig({ FOLIO_WEBHOOK_TIMEOUT: value }),
        (error: unknown) =>
          error instanceof ConfigError && error.problems[0]!.startsWith('FOLIO_WEBHOOK_TIMEOUT='),
        value,
      );
    }
  });

  test('values are parsed: base URL follows PORT, trailing slashes are dropped', () => {
    const config = loadConfig({
      PORT: '9000',
      DATABASE_URL: 'postgres://u@db:5432/folio',
      FOLIO_DEMO: 'false',
      FOLIO_WEBHOOK_RETRY_SCHEDULE: '1s, 2m ,3h',
      FOLIO_WEBHOOK_TIMEOUT: '1500ms',
    });
    assert.equal(config.baseUrl, 'http://localhost:9000');
    assert.equal(config.databaseUrl, 'postgres://u@db:5432/folio');
    assert.equal(config.demo, false);
    assert.deepEqual(config.webhookRetryScheduleMs, [1000, 120_000, 10_800_000]);
    assert.equal(config.webhookTimeoutMs, 1500);
    assert.equal(
      loadConfig({ FOLIO_BASE_URL: 'https://cms.example.com/folio/' }).baseUrl,
      'https://cms.example.com/folio',
    );
  });

  test('every bad value is reported at once, each line naming its variable', () => {
    let error: ConfigError | undefined;
    try {
      loadConfig({
        PORT: 'eighty',
        DATABASE_URL: 'mysql://x',
        FOLIO_BASE_URL: 'ftp://x',
        FOLIO_DEMO: 'maybe',
        FOLIO_WEBHOOK_TIMEOUT: '0s',
        FOLIO_WEBHOOK_RETRY_SCHEDULE: '5s,soon',
        FOLIO_ADMIN_TOKEN: 'two words',
      });
    } catch (caught) {
      error = caught as ConfigError;
    }
    assert.ok(error instanceof ConfigError);
    const names = [
      'PORT',
      'DATABASE_URL',
      'FOLIO_BASE_URL',
      'FOLIO_DEMO',
      'FOLIO_WEBHOOK_TIMEOUT',
      'FOLIO_WEBHOOK_RETRY_SCHEDULE',
      'FOLIO_ADMIN_TOKEN',
    ];
    assert.equal(error.problems.length, names.length);
    for (const name of names) {
      assert.equal(
        error.problems.filter((line) => line.startsWith(`${name}=`) || line.startsWith(`${name} `)).length,
        1,
        name,
      );
    }
  });

  test('an admin token of any length is taken as given (start-up warns when it is short)', () => {
    assert.equal(loadConfig({ FOLIO_ADMIN_TOKEN: 'secret' }).adminToken, 'secret');
    assert.equal(loadConfig({ FOLIO_ADMIN_TOKEN: 'x' }).adminToken, 'x');
  });

  test('durations', () => {
    assert.equal(parseDuration('5s'), 5000);
    assert.equal(parseDuration('10'), 10_000);
    assert.equal(parseDuration('2h'), 7_200_000);
    assert.equal(parseDuration('1.5m'), 90_000);
    assert.equal(parseDuration('5 weeks'), undefined);
  });

  test('SQLite syncs every commit unless told normal; a proxy is trusted only when told', () => {
    assert.equal(loadConfig({}).sqliteSynchronous, 'normal');
    assert.equal(loadConfig({ FOLIO_SQLITE_SYNCHRONOUS: 'NORMAL' }).sqliteSynchronous, 'normal');
    assert.equal(loadConfig({ FOLIO_SQLITE_SYNCHRONOUS: 'full' }).sqliteSynchronous, 'full');
    assert.equal(loadConfig({}).trustProxy, false);
    assert.equal(loadConfig({ FOLIO_TRUST_PROXY: 'true' }).trustProxy, true);
    assert.equal(loadConfig({ FOLIO_TRUST_PROXY: 'false' }).trustProxy, false);
    assert.throws(
      () => loadConfig({ FOLIO_SQLITE_SYNCHRONOUS: 'off', FOLIO_TRUST_PROXY: 'nginx' }),
      (error: ConfigError) =>
        error.problems.length === 2 &&
        error.problems[0]!.startsWith(
          'FOLIO_SQLITE_SYNCHRONOUS="off" is not valid: expected full or normal',
        ) &&
        error.problems[1]!.startsWith('FOLIO_TRUST_PROXY='),
    );
  });

  test('FOLIO_WEBHOOK_CONCURRENCY: deliveries in flight per project, a whole number from 1', () => {
    assert.equal(loadConfig({}).webhookConcurrency, 32);
    assert.equal(loadConfig({ FOLIO_WEBHOOK_CONCURRENCY: '4' }).webhookConcurrency, 4);
    for (const bad of ['0', '-1', '2.5', 'many', '1001']) {
      assert.throws(
        () => loadConfig({ FOLIO_WEBHOOK_CONCURRENCY: bad }),
        (error: ConfigError) =>
          error.problems.length === 1 &&
          error.problems[0]!.startsWith(`FOLIO_WEBHOOK_CONCURRENCY="${bad}" is not valid: expected`),
        bad,
      );
    }
  });

  test('a refused credential is named without its value; a refused URL without its password', () => {
    assert.throws(
      () =>
        loadConfig({
          DATABASE_URL: 'mysql://folio:S3cretPw@db/folio?password=S3cretPw',
          FOLIO_ADMIN_TOKEN: 'Top Secret Admin',
          FOLIO_SECRET_KEY: 'c2VjcmV0',
          FOLIO_REDIS_URL: 'http://:S3cretPw@cache',
        }),
      (error: ConfigError) => {
        const text = error.problems.join('\n');
        assert.equal(error.problems.length, 4, text);
        assert.doesNotMatch(text, /S3cretPw|Top Secret|c2VjcmV0/);
        assert.match(text, /^DATABASE_URL="mysql:\/\/folio@db\/folio\?password=redacted" is not valid/m);
        assert.match(text, /^FOLIO_ADMIN_TOKEN \(value not shown\) is not valid/m);
        return true;
      },
    );
  });
});
