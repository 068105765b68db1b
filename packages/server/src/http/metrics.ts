import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** What a webhook attempt came to, as `folio_webhook_deliveries_total` counts it. */
export type WebhookOutcome = 'succeeded' | 'failed' | 'retried';

/** Figures read from the database when Prometheus scrapes, not kept in step with every write. */
export interface ScrapedGauges {
  pendingDeliveries(): Promise<number>;
  publishedArticles(): Promise<number>;
}

/**
 * The contract's metrics on prom-client, in a registry of this server's own (tests build many
 * servers in one process). Route labels are templates, never URLs, so label values stay bounded
 * under any traffic; `status` is the three-digit code.
 */
export interface Metrics {
  /** One answered request, from either path; `seconds` from its arrival to its answer. */
  answered(route: string, method: string, status: number, seconds: number): void;
  /** A delivery answer found ready in the response cache, or built. */
  cacheHit(): void;
  cacheMiss(): void;
  /** A recorded attempt, by the status its delivery has after it (`pending`: retried later). */
  webhookAttempt(status: 'succeeded' | 'failed' | 'pending'): void;
  /** Reads the gauges from the database; set once the database is open. */
  scrapeFrom(gauges: ScrapedGauges): void;
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
// (BENCHMARKS.md, "Delivery"): the buckets start well below a cached answer and end past a sitemap.
const DURATION_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
];

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'folio_http_requests_total',
    help: 'HTTP requests answered, by route template, method and status code',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const durations = new Histogram({
    name: 'folio_http_request_duration_seconds',
    help: 'Time from a request arriving to its answer, by route template',
    labelNames: ['route'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const hits = new Counter({
    name: 'folio_response_cache_hits_total',
    help: 'Delivery answers served from the response cache, fast answers included',
    registers: [registry],
  });
  const misses = new Counter({
    name: 'folio_response_cache_misses_total',
    help: 'Delivery answers built because the response cache did not hold them',
    registers: [registry],
  });
  const webhooks = new Counter({
    name: 'folio_webhook_deliveries_total',
    help: 'Webhook delivery attempts, by outcome: succeeded, failed (given up), retried (another attempt scheduled)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  let gauges: ScrapedGauges | undefined;
  new Gauge({
    name: 'folio_webhook_pending',
    help: 'Webhook deliveries waiting for an attempt',
    registers: [registry],
    async collect() {
      if (gauges) this.set(await gauges.pendingDeliveries());
    },
  });
  new Gauge({
    name: 'folio_articles_published',
    help: 'Published articles, all projects',
    registers: [registry],
    async collect() {
      if (gauges) this.set(await gauges.publishedArticles());
    },
  });

  // A request's series are found by a short string rather than prom-client hashing label
  // objects on every answer: every fast answer passes here.
  const series = new Map<string, { count: { inc(): void }; time: { observe(value: number): void } }>();
  const totals: MetricTotals = {
    requests: 0,
    errors: 0,
    cacheHits: 0,
    cacheMisses: 0,
    webhooks: { succeeded: 0, failed: 0, retried: 0 },
  };

  return {
    answered(route, method, status, seconds) {
      const id = `${status} ${method} ${route}`;
      let found = series.get(id);
      if (!found) {
        found = { count: requests.labels(route, method, String(status)), time: durations.labels(route) };
        series.set(id, found);
      }
      found.count.inc();
      found.time.observe(seconds);
      totals.requests++;
      if (status >= 400) totals.errors++;
    },
    cacheHit() {
      hits.inc();
      totals.cacheHits++;
    },
    cacheMiss() {
      misses.inc();
      totals.cacheMisses++;
    },
    webhookAttempt(status) {
      const outcome: WebhookOutcome = status === 'pending' ? 'retried' : status;
      webhooks.labels(outcome).inc();
      totals.webhooks[outcome]++;
    },
    scrapeFrom(from) {
      gauges = from;
    },
    render: () => registry.metrics(),
    contentType: registry.contentType,
    totals: () => structuredClone(totals),
  };
}
