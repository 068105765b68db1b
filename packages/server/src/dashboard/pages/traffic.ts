import { html, type SafeHtml } from '@folio/client';
import type { DeliveryStatus } from '../../db/tables.ts';
import type { LastHour, TrafficMinute } from '../../http/metrics-history.ts';

/** A project's page, Last hour: the server's counters, and this project's delivery log. */
export interface TrafficData {
  lastHour: LastHour;
  /** This project's deliveries created in the last hour, by the status each has now. */
  deliveries: Record<DeliveryStatus, number>;
}

const SLOTS = 60;
const SLOT_WIDTH = 10;
const CHART_HEIGHT = 64;
const numbers = new Intl.NumberFormat('en-US');

/** One stacked part of a bar: a figure of each minute, and the class that colours it. */
interface Series {
  label: string;
  className: string;
  value: (minute: TrafficMinute) => number;
}

const REQUEST_SERIES: Series[] = [
  { label: 'Errors', className: 'bar-error', value: (m) => m.errors },
  { label: 'Other requests', className: 'bar-request', value: (m) => m.requests - m.errors },
];
const WEBHOOK_SERIES: Series[] = [
  { label: 'Succeeded', className: 'bar-ok', value: (m) => m.webhooks.succeeded },
  { label: 'Retried', className: 'bar-retry', value: (m) => m.webhooks.retried },
  { label: 'Failed', className: 'bar-error', value: (m) => m.webhooks.failed },
];

/**
 * The counters are server-wide on purpose (the contract's metric labels are fixed, with no
 * project among them), so the card says whose figures they are; the per-project part comes
 * from the database.
 */
export function trafficCard(data: TrafficData, refresh: string): SafeHtml {
  // Refreshed with the delivery log beside it (the same script): left as the page was made, its
  // counts said Pending while the log showed the delivery succeeded. Quiet: when a refresh is
  // refused (signed out), the log alone says so.
  return html`<section class="card" id="traffic" aria-labelledby="traffic-title">
  <h2 id="traffic-title">Last hour</h2>
  <div data-refresh="${refresh}" data-refresh-quiet>
  ${trafficFigures(data)}
  </div>
</section>`;
}

/** The Last hour card's figures and charts: also served alone, so the page can refresh them. */
export function trafficFigures({ lastHour, deliveries }: TrafficData): SafeHtml {
  const { total, minutes } = lastHour;
  const cacheable = total.cacheHits + total.cacheMisses;
  return html`<p class="muted">This server process, all projects, ${utcTime(lastHour.since)} to ${utcTime(lastHour.until)} (the last hour, or since the process started): the counters of <code>GET /metrics</code>.</p>
  <div class="traffic">
    <div class="traffic-part">
      <h3>Requests</h3>
      <dl class="figures">
        ${figure('Requests', total.requests)}
        ${figure('Errors', total.errors, share(total.errors, total.requests, 'of requests'))}
        ${figure('Cache hits', total.cacheHits, share(total.cacheHits, cacheable, 'hit rate'))}
      </dl>
      ${barChart('Requests per minute', minutes, REQUEST_SERIES, describeRequests)}
    </div>
    <div class="traffic-part">
      <h3>Webhook attempts</h3>
      <dl class="figures">
        ${figure('Succeeded', total.webhooks.succeeded)}
        ${figure('Retried', total.webhooks.retried)}
        ${figure('Failed', total.webhooks.failed)}
      </dl>
      ${barChart('Webhook attempts per minute', minutes, WEBHOOK_SERIES, describeWebhooks)}
    </div>
  </div>
  <h3 id="project-deliveries-title">This project's deliveries</h3>
  <p class="muted">From the delivery log (every server process): deliveries created in the last hour, by their status now.</p>
  <dl class="figures" aria-labelledby="project-deliveries-title">
    ${figure('Succeeded', deliveries.succeeded)}
    ${figure('Pending', deliveries.pending)}
    ${figure('Failed', deliveries.failed)}
  </dl>`;
}

function figure(label: string, value: number, note?: string): SafeHtml {
  return html`<div><dt>${label}</dt><dd>${numbers.format(value)}${note ? html` <span class="muted">${note}</span>` : ''}</dd></div>`;
}

function share(part: number, whole: number, what: string): string | undefined {
  if (whole === 0) return undefined;
  return `${Math.round((part / whole) * 100)}% ${what}`;
}

/**
 * A stacked bar per minute in inline SVG (the CSP allows no inline styles; SVG attributes are
 * not styles), newest at the right; every bar has a title, and the figures above say it in text.
 */
function barChart(
  label: string,
  minutes: TrafficMinute[],
  series: Series[],
  describe: (minute: TrafficMinute) => string,
): SafeHtml {
  const shown = minutes.slice(-SLOTS);
  const peak = Math.max(1, ...shown.map((m) => series.reduce((sum, s) => sum + s.value(m), 0)));
  const bars = shown.map((minute, index) => {
    const x = (SLOTS - shown.length + index) * SLOT_WIDTH + 1;
    let top = CHART_HEIGHT;
    const parts = series.map((s) => {
      const value = s.value(minute);
      if (value === 0) return '';
      const height = Math.max(1.5, (value / peak) * (CHART_HEIGHT - 4));
      top -= height;
      return html`<rect class="${s.className}" x="${x}" y="${top.toFixed(1)}" width="${SLOT_WIDTH - 2}" height="${height.toFixed(1)}"></rect>`;
    });
    return html`<g><title>${clock(minute.from)}–${clock(minute.to)} UTC: ${describe(minute)}</title><rect class="bar-slot" x="${x - 1}" y="0" width="${SLOT_WIDTH}" height="${CHART_HEIGHT}"></rect>${parts}</g>`;
  });
  return html`<figure class="chart">
    <svg viewBox="0 0 ${SLOTS * SLOT_WIDTH} ${CHART_HEIGHT}" preserveAspectRatio="none" role="img" aria-label="${label}, the last hour; at most ${numbers.format(peak)} in a minute">
      ${bars}
      <rect class="chart-axis" x="0" y="${CHART_HEIGHT - 1}" width="${SLOTS * SLOT_WIDTH}" height="1"></rect>
    </svg>
    <div class="chart-times" aria-hidden="true"><span>60 min ago</span><span>now</span></div>
    <figcaption class="legend">${series.map((s) => html`<span><span class="swatch ${s.className}"></span>${s.label}</span>`)}</figcaption>
  </figure>`;
}

function describeRequests(minute: TrafficMinute): string {
  return `${numbers.format(minute.requests)} requests, ${numbers.format(minute.errors)} errors`;
}

function describeWebhooks({ webhooks }: TrafficMinute): string {
  return `${webhooks.succeeded} succeeded, ${webhooks.retried} retried, ${webhooks.failed} failed`;
}

function utcTime(ms: number): SafeHtml {
  return html`<time datetime="${new Date(ms).toISOString()}">${clock(ms)} UTC</time>`;
}

/** Hours and minutes, UTC. */
function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 16);
}
