import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { withDeadline } from '../deadline.ts';
import { ATTEMPT_FAILURES, type AttemptFailure } from '../webhooks/attempt-failure.ts';

/** What a webhook attempt came to, as `folio_webhook_deliveries_total` counts it. */
export type WebhookOutcome = 'succeeded' | 'failed' | 'retried';

/** Figures read from the database when Prometheus scrapes, not kept in step with every write. */
export interface ScrapedGauges {
  pendingDeliveries(): Promise<number>;
  /** Seconds since the oldest pending delivery was created; 0 when none is pending. */
  oldestPendingSeconds(): Promise<number>;
  publishedArticles(): Promise<number>;
}

/**
 * The contract's metrics on prom-client, in a registry of this server's own (tests build many
 * servers in one process). Route labels are templates, never URLs, so label values stay bounded
 * under any traffic; `status` is the three-digit code.
 */
/**
 * Why the fast path handed a delivery request to the framework: no recent check of a content
 * key for the project (`credential`), no ready answer (`entry`), an answer past its freshness
 * (`stale`), the change token moved or could not be read (`token`), an encoding not made yet
 * (`encoding`), or a budget that refused it (`budget`).
 */
export type FastPathRefusal = 'credential' | 'entry' | 'stale' | 'token' | 'encoding' | 'budget';

export interface Metrics {
  /** One answered request, from either path; `seconds` from its arrival to its answer. */
  answered(route: string, method: string, status: number, seconds: number): void;
  /** A delivery answer found ready in the response cache, or built. */
  cacheHit(): void;
  /** A delivery request the fast path handed to the framework, and why. */
  fastPathRefused(reason: FastPathRefusal): void;
  cacheMiss(): void;
  /**
   * A recorded attempt, by the status its delivery has after it (`pending`: retried later), and
   * why it failed unless it succeeded.
   */
  webhookAttempt(status: 'succeeded' | 'failed' | 'pending', failure?: AttemptFailure): void;
  /** Reads the gauges from the database; set once the database is open. */
  scrapeFrom(gauges: ScrapedGauges): void;
  /** Reads answers being made and waiting for a turn (`http/answer-slots.ts`) at each scrape. */
  answerSlotsFrom(use: () => { held: number; waiting: number }): void;
  /** The Prometheus text format (0.0.4). */
  render(): Promise<string>;
  readonly contentType: string;
  /** Totals since start, for the dashboard's last hour (see `metrics-history.ts`). */
  totals(): MetricTotals;
}

export interface MetricTotals {
  requests: number;
  /** Answers with a 4xx or 5xx status. */
  errors: number;
  cacheHits: number;
  cacheMisses: number;
  webhooks: Record<WebhookOutcome, number>;
}

// A cached answer and a whole sitemap of a large catalogue differ by orders of magnitude
// (BENCHMARKS.md, "Delivery"): the buckets start well below a cached answer and end past the
// longest a request waits for the database (its connect, lock and query timeouts), so an
// outage's 503s land in buckets of their own rather than all in +Inf.
const DURATION_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Every answer passes `answered`, fast answers included: it only adds to plain numbers, and
  // prom-client reads them when /metrics is scraped. Its own counters and histograms hash their
  // label objects and allocate on every call, which showed as a share of every cached answer's
  // CPU (BENCHMARKS.md, "Delivery").
  const routes = new Map<string, RouteSeries>();
  const counts = { hits: 0, misses: 0 };
  const refusals = new Map<FastPathRefusal, number>();
  new Counter({
    name: 'folio_http_requests_total',
    help: 'HTTP requests answered, by route template, method and status code',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [route, series] of routes) {
        for (const [status, methods] of series.answers) {
          for (const [method, count] of methods) this.inc({ route, method, status: String(status) }, count);
        }
      }
    },
  });
  registry.registerMetric(durationHistogram(routes));
  new Counter({
    name: 'folio_response_cache_hits_total',
    help: 'Delivery answers served from the response cache, fast answers included',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(counts.hits);
    },
  });
  new Counter({
    name: 'folio_response_cache_misses_total',
    help: 'Delivery answers built because the response cache did not hold them',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(counts.misses);
    },
  });
  new Counter({
    name: 'folio_fast_path_refusals_total',
    help: 'Delivery requests the fast path handed to the framework, by reason',
    labelNames: ['reason'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [reason, count] of refusals) this.inc({ reason }, count);
    },
  });
  const webhooks = new Counter({
    name: 'folio_webhook_deliveries_total',
    help: 'Webhook delivery attempts, by outcome: succeeded, failed (given up), retried (another attempt scheduled)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  // Every outcome is a series from the start, so a rate or an alert on `failed` has a zero to
  // compare with rather than no data until the first failure.
  for (const outcome of ['succeeded', 'failed', 'retried'] satisfies WebhookOutcome[])
    webhooks.inc({ outcome }, 0);
  const failures = new Counter({
    name: 'folio_webhook_attempt_failures_total',
    help: 'Webhook delivery attempts that failed, by reason: timeout, connect, tls, redirect, status_4xx, status_5xx, invalid_response, not_sent',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  for (const reason of ATTEMPT_FAILURES) failures.inc({ reason }, 0);
  let gauges: ScrapedGauges | undefined;
  new Gauge({
    name: 'folio_webhook_pending',
    help: 'Webhook deliveries waiting for an attempt, all projects (the same on every process)',
    registers: [registry],
    async collect() {
      if (gauges) this.set(await fromDatabase(gauges.pendingDeliveries));
    },
  });
  new Gauge({
    name: 'folio_webhook_oldest_pending_seconds',
    help: 'Age of the oldest webhook delivery waiting for an attempt, from its creation; 0 when none (the same on every process)',
    registers: [registry],
    async collect() {
      if (gauges) this.set(await fromDatabase(gauges.oldestPendingSeconds));
    },
  });
  new Gauge({
    name: 'folio_articles_published',
    help: 'Published articles, all projects (the same on every process)',
    registers: [registry],
    async collect() {
      if (gauges) this.set(await fromDatabase(gauges.publishedArticles));
    },
  });

  let slots: (() => { held: number; waiting: number }) | undefined;
  new Gauge({
    name: 'folio_answers_in_progress',
    help: 'Answers being made or sent from the database now, this process (bounded by its heap)',
    registers: [registry],
    collect() {
      this.set(slots?.().held ?? 0);
    },
  });
  new Gauge({
    name: 'folio_answers_waiting',
    help: 'Requests waiting for a turn to have their answer made, this process (503 if none comes in time)',
    registers: [registry],
    collect() {
      this.set(slots?.().waiting ?? 0);
    },
  });

  const totals: MetricTotals = {
    requests: 0,
    errors: 0,
    cacheHits: 0,
    cacheMisses: 0,
    webhooks: { succeeded: 0, failed: 0, retried: 0 },
  };

  return {
    answered(route, method, status, seconds) {
      let series = routes.get(route);
      if (!series) {
        series = {
          answers: new Map(),
          buckets: new Array(DURATION_BUCKETS.length).fill(0),
          sum: 0,
          count: 0,
        };
        routes.set(route, series);
      }
      let methods = series.answers.get(status);
      if (!methods) {
        methods = new Map();
        series.answers.set(status, methods);
      }
      methods.set(method, (methods.get(method) ?? 0) + 1);
      let bucket = 0;
      while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]!) bucket++;
      if (bucket < DURATION_BUCKETS.length) series.buckets[bucket]!++;
      series.sum += seconds;
      series.count++;
      totals.requests++;
      if (status >= 400) totals.errors++;
    },
    cacheHit() {
      counts.hits++;
      totals.cacheHits++;
    },
    fastPathRefused(reason) {
      refusals.set(reason, (refusals.get(reason) ?? 0) + 1);
    },
    cacheMiss() {
      counts.misses++;
      totals.cacheMisses++;
    },
    webhookAttempt(status, failure) {
      const outcome: WebhookOutcome = status === 'pending' ? 'retried' : status;
      webhooks.labels(outcome).inc();
      if (failure) failures.labels(failure).inc();
      totals.webhooks[outcome]++;
    },
    scrapeFrom(from) {
      gauges = from;
    },
    answerSlotsFrom(use) {
      slots = use;
    },
    render: () => registry.metrics(),
    contentType: registry.contentType,
    totals: () => structuredClone(totals),
  };
}

// How long a scrape waits for a figure from the database before it reports it unknown.
const DATABASE_GAUGE_MS = 2_000;

/**
 * A figure read from the database, or NaN (Prometheus's "no value") when the database fails or
 * does not answer in time: an outage must not take the process's own series with it (request
 * counts, event-loop lag, memory), which are wanted most then.
 */
async function fromDatabase(read: () => Promise<number>): Promise<number> {
  try {
    return await withDeadline(read(), DATABASE_GAUGE_MS, 'the database did not answer');
  } catch {
    return Number.NaN;
  }
}

/** One route template's answers: counts by status and method, and the duration histogram. */
interface RouteSeries {
  answers: Map<number, Map<string, number>>;
  /** Answers per bucket (not cumulative); those past the last bound count only in `count`. */
  buckets: number[];
  sum: number;
  count: number;
}

/**
 * `folio_http_request_duration_seconds` as prom-client's registry renders a histogram (cumulative
 * `_bucket` lines with `le`, then `_sum` and `_count`), from the plain numbers `answered` keeps.
 */
function durationHistogram(routes: Map<string, RouteSeries>) {
  const name = 'folio_http_request_duration_seconds';
  const help = 'Time from a request arriving to its answer, by route template';
  const get = async () => {
    const values: Array<{ metricName: string; labels: Record<string, string | number>; value: number }> = [];
    for (const [route, series] of routes) {
      let cumulative = 0;
      DURATION_BUCKETS.forEach((bound, i) => {
        cumulative += series.buckets[i]!;
        values.push({ metricName: `${name}_bucket`, labels: { le: bound, route }, value: cumulative });
      });
      values.push({ metricName: `${name}_bucket`, labels: { le: '+Inf', route }, value: series.count });
      values.push({ metricName: `${name}_sum`, labels: { route }, value: series.sum });
      values.push({ metricName: `${name}_count`, labels: { route }, value: series.count });
    }
    return { name, help, type: 'histogram' as const, values, aggregator: 'sum' as const };
  };
  return { name, help, type: 'histogram', get } as unknown as Parameters<Registry['registerMetric']>[0];
}
