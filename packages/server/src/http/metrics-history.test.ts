import assert from 'node:assert/strict';
import { describe, mock, test } from 'node:test';
import { createClock } from '../test/test-app.ts';
import { createMetrics } from './metrics.ts';
import { createMetricsHistory, HOUR_MS } from './metrics-history.ts';

const MINUTE = 60_000;

function setUp() {
  const clock = createClock();
  const metrics = createMetrics();
  const history = createMetricsHistory({ totals: metrics.totals, now: clock.now });
  /** `count` answered requests, the first `errors` of them 500s. */
  const requests = (count: number, errors = 0) => {
    for (let i = 0; i < count; i++) metrics.answered('/x', 'GET', i < errors ? 500 : 200, 0.001);
  };
  return { clock, metrics, history, requests };
}

describe('metrics history', () => {
  test('before any sample, the last hour is empty and starts now', () => {
    const { clock, history, requests } = setUp();
    requests(3);
    const hour = history.lastHour();
    assert.equal(hour.since, clock.now());
    assert.equal(hour.total.requests, 0);
    assert.deepEqual(hour.minutes, []);
  });

  test('counts what the counters added since the first sample, per minute and in total', () => {
    const { clock, metrics, history, requests } = setUp();
    requests(2);
    const start = clock.now();
    history.sample();
    requests(5, 1);
    metrics.cacheHit();
    metrics.cacheMiss();
    clock.advance(MINUTE);
    history.sample();
    requests(3);
    metrics.webhookAttempt('succeeded');
    metrics.webhookAttempt('pending');
    metrics.webhookAttempt('failed');
    clock.advance(20_000);

    const hour = history.lastHour();
    assert.equal(hour.since, start);
    assert.equal(hour.until, start + MINUTE + 20_000);
    assert.deepEqual(hour.total, {
      requests: 8,
      errors: 1,
      cacheHits: 1,
      cacheMisses: 1,
      webhooks: { succeeded: 1, retried: 1, failed: 1 },
    });
    assert.deepEqual(
      hour.minutes.map(({ from, to, requests, errors, webhooks }) => ({
        from,
        to,
        requests,
        errors,
        webhooks,
      })),
      [
        {
          from: start,
          to: start + MINUTE,
          requests: 5,
          errors: 1,
          webhooks: { succeeded: 0, retried: 0, failed: 0 },
        },
        {
          from: start + MINUTE,
          to: start + MINUTE + 20_000,
          requests: 3,
          errors: 0,
          webhooks: { succeeded: 1, retried: 1, failed: 1 },
        },
      ],
    );
  });

  test('keeps 60 samples: after 90 minutes the figures start 30 minutes in, not at the start', () => {
    const { clock, history, requests } = setUp();
    const start = clock.now();
    for (let minute = 0; minute < 90; minute++) {
      history.sample();
      requests(minute < 30 ? 100 : 1);
      clock.advance(MINUTE);
    }
    const hour = history.lastHour();
    assert.equal(hour.since, start + 30 * MINUTE);
    assert.equal(hour.minutes.length, 60);
    assert.equal(hour.total.requests, 60);
    assert.ok(hour.minutes.every((minute) => minute.requests === 1));
  });

  test('samples older than an hour are left out; with none recent the newest one says how far back', () => {
    const { clock, history, requests } = setUp();
    history.sample();
    requests(4);
    clock.advance(30 * MINUTE);
    history.sample();
    requests(1);
    clock.advance(40 * MINUTE);
    assert.deepEqual(
      [history.lastHour().since, history.lastHour().total.requests],
      [clock.now() - 40 * MINUTE, 1],
    );
    clock.advance(2 * HOUR_MS);
    const stale = history.lastHour();
    assert.equal(stale.since, clock.now() - 2 * HOUR_MS - 40 * MINUTE);
    assert.equal(stale.total.requests, 1);
  });

  test('start samples at once and then every interval; stop ends the timer', (t) => {
    t.mock.timers.enable({ apis: ['setInterval'] });
    const clock = createClock();
    const totals = mock.fn(createMetrics().totals);
    const history = createMetricsHistory({ totals, now: clock.now, intervalMs: MINUTE });
    history.start();
    history.start();
    assert.equal(totals.mock.callCount(), 1);
    t.mock.timers.tick(3 * MINUTE);
    assert.equal(totals.mock.callCount(), 4);
    history.stop();
    t.mock.timers.tick(3 * MINUTE);
    assert.equal(totals.mock.callCount(), 4);
  });
});
