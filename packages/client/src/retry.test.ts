import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffDelay, parseRetryAfter, sleep } from './retry.ts';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-22T10:00:00.000Z');
  it('reads an asctime date, which has no zone, as GMT whatever the local zone', (t) => {
    const zone = process.env.TZ;
    t.after(() => {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    });
    const now = Date.parse('2026-11-28T09:00:00Z');
    for (const tz of ['UTC', 'America/New_York', 'Asia/Tokyo']) {
      process.env.TZ = tz;
      assert.equal(parseRetryAfter('Sat Nov 28 09:00:30 2026', now), 30_000, tz);
      assert.equal(
        parseRetryAfter('Sat Nov  7 09:00:30 2026', Date.parse('2026-11-07T09:00:00Z')),
        30_000,
        tz,
      );
    }
  });

  it('reads delta-seconds and HTTP dates', () => {
    assert.equal(parseRetryAfter('0', now), 0);
    assert.equal(parseRetryAfter(' 12 ', now), 12_000);
    assert.equal(parseRetryAfter('Sun, 22 Nov 2026 10:01:00 GMT', now), 60_000);
    assert.equal(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now), 0, 'a past date means now');
  });
  it('ignores what it cannot read', () => {
    for (const value of [null, '', '-1', '1.5', 'soon']) assert.equal(parseRetryAfter(value, now), undefined);
  });
});

describe('backoffDelay', () => {
  it('doubles up to the cap', () => {
    const policy = { retries: 10, baseDelayMs: 100, maxDelayMs: 1000 };
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5].map((retry) => backoffDelay(retry, policy, () => 1)),
      [100, 200, 400, 800, 1000, 1000],
    );
    assert.equal(
      backoffDelay(3, policy, () => 0),
      400,
    );
  });
});

describe('sleep', () => {
  it('rejects with the reason when aborted', async () => {
    await assert.rejects(sleep(10_000, AbortSignal.abort(new Error('stop'))), /stop/);
    const controller = new AbortController();
    const pending = sleep(10_000, controller.signal);
    controller.abort(new Error('later'));
    await assert.rejects(pending, /later/);
    await sleep(1);
  });
});
