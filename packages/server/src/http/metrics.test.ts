import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMetrics } from './metrics.ts';

const sample = (text: string, name: string) => new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1];

test('a database that fails or hangs leaves its gauges unknown, and the rest of the scrape', async () => {
  const metrics = createMetrics();
  metrics.answered('/healthz', 'GET', 200, 0.001);
  let database: 'up' | 'failing' | 'frozen' = 'up';
  const read = (value: number) => () => {
    if (database === 'failing') return Promise.reject(new Error('connect ECONNREFUSED'));
    if (database === 'frozen') return new Promise<number>(() => {});
    return Promise.resolve(value);
  };
  metrics.scrapeFrom({
    pendingDeliveries: read(3),
    oldestPendingSeconds: read(42.5),
    publishedArticles: read(720),
  });

  const up = await metrics.render();
  assert.equal(sample(up, 'folio_webhook_pending'), '3');
  assert.equal(sample(up, 'folio_webhook_oldest_pending_seconds'), '42.5');
  assert.equal(sample(up, 'folio_articles_published'), '720');

  for (const state of ['failing', 'frozen'] as const) {
    database = state;
    const text = await metrics.render();
    assert.equal(sample(text, 'folio_webhook_pending'), 'Nan', state);
    assert.equal(sample(text, 'folio_webhook_oldest_pending_seconds'), 'Nan', state);
    assert.equal(sample(text, 'folio_articles_published'), 'Nan', state);
    assert.match(
      text,
      /^folio_http_requests_total\{route="\/healthz",method="GET",status="200"\} 1$/m,
      state,
    );
    assert.match(text, /^process_resident_memory_bytes \d+/m, state);
  }
});

test('an answer that waited out a database timeout lands in a bucket, not only in +Inf', async () => {
  const metrics = createMetrics();
  metrics.answered('/readyz', 'GET', 503, 5.002);
  metrics.answered('/api/x', 'GET', 503, 15.01);
  const text = await metrics.render();
  const bucket = (route: string, le: string) =>
    sample(
      text,
      `folio_http_request_duration_seconds_bucket\\{le="${le}",route="${route.replaceAll('/', '\\/')}"\\}`,
    );
  assert.equal(bucket('/readyz', '5'), '0');
  assert.equal(bucket('/readyz', '10'), '1');
  assert.equal(bucket('/api/x', '10'), '0');
  assert.equal(bucket('/api/x', '30'), '1');
});
