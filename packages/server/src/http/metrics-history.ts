import type { MetricTotals, WebhookOutcome } from './metrics.ts';

export const HOUR_MS = 3_600_000;
const SAMPLE_INTERVAL_MS = 60_000;
/** An hour of one-minute samples. */
const SAMPLES = 60;

/** What the counters added over a span of time. */
export interface TrafficFigures {
  requests: number;
  /** Answers with a 4xx or 5xx status. */
  errors: number;
  cacheHits: number;
  cacheMisses: number;
  webhooks: Record<WebhookOutcome, number>;
}

/** One span between two samples (the last one ends now); epoch milliseconds. */
export interface TrafficMinute extends TrafficFigures {
  from: number;
  to: number;
}

export interface LastHour {
  /** Where the figures start: an hour ago, or the first sample when the server started since. */
  since: number;
  until: number;
  total: TrafficFigures;
  /** Oldest first; the last one is the minute under way. */
  minutes: TrafficMinute[];
}

/** A short history of the metrics' running totals, for the dashboard's last hour. */
export interface MetricsHistory {
  /** Records the totals now; the timer calls it once a minute. */
  sample(): void;
  /** The counters' growth over the last hour, per minute and in total, up to this moment. */
  lastHour(): LastHour;
  /** Samples now and then every interval, on a timer that never keeps the process alive. */
  start(): void;
  stop(): void;
}

export interface MetricsHistoryOptions {
  totals: () => MetricTotals;
  /** Epoch milliseconds; the app's clock. */
  now: () => number;
  intervalMs?: number;
}

interface Sample {
  at: number;
  totals: MetricTotals;
}

/** Keeps the last 60 samples of `totals()`, one a minute, in memory: this process's figures only. */
export function createMetricsHistory(options: MetricsHistoryOptions): MetricsHistory {
  const { totals, now, intervalMs = SAMPLE_INTERVAL_MS } = options;
  const ring: Sample[] = [];
  let next = 0;
  let timer: NodeJS.Timeout | undefined;

  const sample = () => {
    const taken = { at: now(), totals: totals() };
    if (ring.length < SAMPLES) ring.push(taken);
    else ring[next] = taken;
    next = (next + 1) % SAMPLES;
  };

  return {
    sample,
    lastHour() {
      const current = { at: now(), totals: totals() };
      const points = [...windowOf(oldestFirst(ring, next), current.at), current];
      const minutes = points.slice(1).map((point, index) => ({
        from: points[index]!.at,
        to: point.at,
        ...growth(points[index]!.totals, point.totals),
      }));
      return {
        since: points[0]!.at,
        until: current.at,
        total: growth(points[0]!.totals, current.totals),
        minutes,
      };
    },
    start() {
      if (timer) return;
      sample();
      timer = setInterval(sample, intervalMs).unref();
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}

function oldestFirst(ring: Sample[], next: number): Sample[] {
  return ring.length < SAMPLES ? ring : [...ring.slice(next), ...ring.slice(0, next)];
}

/**
 * The samples of the last hour. When none is that recent (the timer stopped, or a test moved
 * the clock) the newest one is kept, and `since` says how far back the figures then reach.
 */
function windowOf(samples: Sample[], at: number): Sample[] {
  const recent = samples.filter((sample) => sample.at >= at - HOUR_MS);
  return recent.length > 0 || samples.length === 0 ? recent : samples.slice(-1);
}

function growth(from: MetricTotals, to: MetricTotals): TrafficFigures {
  return {
    requests: to.requests - from.requests,
    errors: to.errors - from.errors,
    cacheHits: to.cacheHits - from.cacheHits,
    cacheMisses: to.cacheMisses - from.cacheMisses,
    webhooks: {
      succeeded: to.webhooks.succeeded - from.webhooks.succeeded,
      retried: to.webhooks.retried - from.webhooks.retried,
      failed: to.webhooks.failed - from.webhooks.failed,
    },
  };
}
