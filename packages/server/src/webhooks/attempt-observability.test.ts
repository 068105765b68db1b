import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import pino from 'pino';
import { createMetrics, type Metrics } from '../http/metrics.ts';
import { DIALECTS } from '../test/databases.ts';
import { type Receiver, startReceiver } from '../test/receiver.ts';
import { createTestApp, newArticle, TEST_RETRY_SCHEDULE, type TestApp } from '../test/test-app.ts';

/** The lines a pino logger at `level` wrote, parsed, as an operator's log collector gets them. */
function captureLogs(level: 'info' | 'warn') {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger: logger.child({ component: 'webhooks' }), lines };
}

const sample = (text: string, series: string) => {
  const escaped = series.replace(/[{}"]/g, (c) => `\\${c}`);
  return new RegExp(`^${escaped} (\\S+)$`, 'm').exec(text)?.[1];
};

for (const dialect of DIALECTS) {
  describe(`webhook trouble in the logs and metrics [${dialect}]`, () => {
    const opened: Array<TestApp | Receiver> = [];
    after(async () => {
      for (const each of opened) await each.close();
    });

    async function setUp(level: 'info' | 'warn', receiverPath = '/hooks/folio') {
      const metrics = createMetrics();
      const logs = captureLogs(level);
      // Real time: the receiver refuses signatures more than 5 minutes off.
      const t = await createTestApp(dialect, {
        metrics,
        clockStart: Date.now(),
        dispatcher: { logger: logs.logger },
      });
      const receiver = await startReceiver(receiverPath);
      opened.push(t, receiver);
      const projectId = (await t.createProject()).id;
      const set = await t.admin('PUT', `/admin/v1/projects/${projectId}/webhook`, { url: receiver.url });
      assert.equal(set.statusCode, 200, set.body);
      return { t, receiver, projectId, metrics, lines: logs.lines };
    }

    const failures = async (metrics: Metrics, reason: string) =>
      Number(sample(await metrics.render(), `folio_webhook_attempt_failures_total{reason="${reason}"}`));

    test('an attempt line names the project, the host alone and the time it took', async () => {
      const s = await setUp('info', '/hooks/folio?token=secret-in-the-query');
      s.receiver.replies = [{ status: 500, body: 'boom', delayMs: 50 }];
      await s.t.putArticle(s.projectId, 'a1', newArticle({ published: true }));
      await s.t.dispatcher.runOnce();
      const [line] = s.lines.filter((entry) => entry.msg === 'webhook delivery attempt');
      assert.ok(line, JSON.stringify(s.lines));
      assert.equal(line.level, 30, 'a retried delivery stays at info');
      assert.equal(line.projectId, s.projectId);
      assert.equal(line.host, new URL(s.receiver.url).host);
      assert.equal(line.statusCode, 500);
      assert.equal(line.reason, 'status_5xx');
      assert.equal(line.status, 'pending');
      assert.ok(typeof line.durationMs === 'number' && line.durationMs >= 50, String(line.durationMs));
      assert.doesNotMatch(JSON.stringify(s.lines), /secret-in-the-query|\/hooks\/folio/);
      assert.equal(await failures(s.metrics, 'status_5xx'), 1);
    });

    test('a delivery given up is logged at warn, which LOG_LEVEL=warn shows', async () => {
      const s = await setUp('warn');
      s.receiver.fallback = { status: 500 };
      await s.t.putArticle(s.projectId, 'a1', newArticle({ published: true }));
      await s.t.dispatcher.runOnce();
      for (const delay of TEST_RETRY_SCHEDULE) {
        s.t.clock.advance(delay);
        await s.t.dispatcher.runOnce();
      }
      const attempts = 1 + TEST_RETRY_SCHEDULE.length;
      assert.equal(s.lines.length, 1, 'retries are at info, below warn');
      const [line] = s.lines;
      assert.equal(line!.level, 40);
      assert.equal(line!.msg, `webhook delivery given up after ${attempts} attempts`);
      assert.equal(line!.attempt, attempts);
      assert.equal(line!.status, 'failed');
      assert.equal(line!.projectId, s.projectId);
      assert.equal(await failures(s.metrics, 'status_5xx'), attempts);
    });

    test('a redirect says it is not followed, and counts as one', async () => {
      const s = await setUp('info');
      s.receiver.replies = [{ status: 302, headers: { location: `${s.receiver.url}/elsewhere` } }];
      await s.t.putArticle(s.projectId, 'a1', newArticle({ published: true }));
      await s.t.dispatcher.runOnce();
      const [line] = s.lines.filter((entry) => entry.msg === 'webhook delivery attempt');
      assert.equal(line!.statusCode, 302);
      assert.equal(line!.reason, 'redirect');
      assert.match(String(line!.error), /^HTTP 302 \(redirects are not followed\)$/);
      const log = (await s.t.admin('GET', `/admin/v1/projects/${s.projectId}/webhook/deliveries`)).json();
      assert.equal(log.data[0].lastError, line!.error, 'the delivery log says the same');
      assert.equal(await failures(s.metrics, 'redirect'), 1);
    });

    test('a refused connection counts as connect; every reason starts at zero', async () => {
      const s = await setUp('info');
      const before = await s.metrics.render();
      for (const reason of [
        'timeout',
        'connect',
        'tls',
        'redirect',
        'status_4xx',
        'status_5xx',
        'invalid_response',
        'not_sent',
      ]) {
        assert.equal(sample(before, `folio_webhook_attempt_failures_total{reason="${reason}"}`), '0', reason);
      }
      await s.receiver.close();
      await s.t.putArticle(s.projectId, 'a1', newArticle({ published: true }));
      await s.t.dispatcher.runOnce();
      const [line] = s.lines.filter((entry) => entry.msg === 'webhook delivery attempt');
      assert.match(String(line!.error), /ECONNREFUSED/);
      assert.equal(line!.reason, 'connect');
      assert.equal(await failures(s.metrics, 'connect'), 1);
      const text = await s.metrics.render();
      assert.equal(sample(text, 'folio_webhook_deliveries_total{outcome="retried"}'), '1');
    });

    test('the oldest pending delivery’s age, from its creation; 0 once none is pending', async () => {
      const s = await setUp('info');
      const gauge = async () =>
        sample((await s.t.admin('GET', '/metrics')).body, 'folio_webhook_oldest_pending_seconds');
      assert.equal(await gauge(), '0', 'none pending');
      s.receiver.fallback = { status: 503 };
      await s.t.putArticle(s.projectId, 'a1', newArticle({ published: true }));
      s.t.clock.advance(30_000);
      await s.t.putArticle(s.projectId, 'a2', newArticle({ slug: 'second', published: true }));
      s.t.clock.advance(60_000);
      assert.equal(await gauge(), '90');
      // A retried delivery keeps its age: it is counted from creation, not from its next attempt.
      await s.t.dispatcher.runOnce();
      s.t.clock.advance(1_500);
      assert.equal(await gauge(), '91.5');
      s.receiver.fallback = { status: 204 };
      s.t.clock.advance(Math.max(...TEST_RETRY_SCHEDULE));
      while ((await s.t.dispatcher.runOnce()) > 0) {}
      assert.equal(await gauge(), '0', 'none pending once delivered');
    });
  });
}
