import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { nextRetryDelay, parseRetryAfter } from './retry-schedule.ts';

const SCHEDULE = [5_000, 300_000, 1_800_000];

describe('retry schedule', () => {
  test('follows the schedule, never earlier and at most 10% later, then gives up', () => {
    assert.equal(
      nextRetryDelay(SCHEDULE, 1, () => 0),
      5_000,
    );
    assert.equal(
      nextRetryDelay(SCHEDULE, 2, () => 0.5),
      315_000,
    );
    assert.equal(
      nextRetryDelay(SCHEDULE, 3, () => 0.999_999_9),
      1_980_000,
    );
    assert.equal(
      nextRetryDelay(SCHEDULE, 4, () => 0),
      undefined,
    );
  });

  test('Retry-After is honoured within the schedule bounds, and never extends the retry budget', () => {
    assert.equal(nextRetryDelay(SCHEDULE, 1, Math.random, 60_000), 60_000);
    assert.equal(nextRetryDelay(SCHEDULE, 1, Math.random, 10), 5_000);
    assert.equal(nextRetryDelay(SCHEDULE, 1, Math.random, 86_400_000), 1_800_000);
    assert.equal(nextRetryDelay(SCHEDULE, 4, Math.random, 60_000), undefined);
  });

  test('Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-20T10:00:00.000Z');
    assert.equal(parseRetryAfter('120', now), 120_000);
    assert.equal(parseRetryAfter('Fri, 20 Nov 2026 10:01:00 GMT', now), 60_000);
    assert.equal(parseRetryAfter('Fri, 20 Nov 2026 09:00:00 GMT', now), 0);
    assert.equal(parseRetryAfter('soon', now), undefined);
    assert.equal(parseRetryAfter(undefined, now), undefined);
  });
});
