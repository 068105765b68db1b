import { html, type SafeHtml } from '@folio/client';
import type { Pagination, Project } from '@folio/schema';
import type { LoggedDelivery } from '../../services/webhooks.ts';
import { csrfField, type PageContext, pager, projectPath, timeTag } from './layout.ts';

// The first characters of a receiver's answer shown in the detail; the store keeps up to 4 KB.
const BODY_PREVIEW = 500;
const COLUMNS = 8;

/** One page of the delivery log, newest first. */
export interface DeliveryLogPage {
  data: LoggedDelivery[];
  pagination: Pagination;
}

/**
 * The delivery log; also served alone so the page can refresh it. Each delivery is a row group:
 * its row (why it failed, when it is tried next, Retry) and a disclosure with the payload and
 * the last response. Below 40rem the rows stack, so Retry stays on the screen.
 */
export function deliveryLog(
  { csrfToken }: Pick<PageContext, 'csrfToken'>,
  project: Project,
  { data: deliveries, pagination }: DeliveryLogPage,
  now: number,
): SafeHtml {
  if (deliveries.length === 0) {
    // Also served alone, without the webhook: worded for a project with or without a URL yet.
    return html`<p>No deliveries yet. Once a webhook URL is saved above, <strong>Send test event</strong> sends one to it.</p>`;
  }
  const base = projectPath(project.id);
  // A retry comes back to this page of the log, not the first.
  const logField =
    pagination.page > 1 ? html`<input type="hidden" name="log" value="${pagination.page}">` : '';
  const groups = deliveries.map(
    (delivery) => html`<tbody class="delivery" data-delivery="${delivery.id}">
    <tr>
      <td data-label="Event">${delivery.event}${subject(delivery)}</td>
      <td data-label="Status"><span class="status ${delivery.status}">${delivery.status}</span></td>
      <td data-label="Attempts">${delivery.attempts}</td>
      <td data-label="Last response">${delivery.lastStatusCode ?? '—'}</td>
      <td data-label="Failure reason">${failureReason(delivery)}</td>
      <td data-label="Next attempt">${nextAttempt(delivery, now)}</td>
      <td data-label="Created">${timeTag(delivery.createdAt)}</td>
      <td class="row-actions"><form method="post" action="${base}/webhook/deliveries/${encodeURIComponent(delivery.id)}/retry">${csrfField(csrfToken)}${logField}<button type="submit" class="button small secondary" aria-label="Retry ${describe(delivery)}">Retry</button></form></td>
    </tr>
    <tr class="delivery-detail"><td colspan="${COLUMNS}">${detail(delivery)}</td></tr>
  </tbody>`,
  );
  const first = (pagination.page - 1) * pagination.limit + 1;
  const range = html`<p class="muted">Deliveries ${first.toLocaleString('en')}–${(first + deliveries.length - 1).toLocaleString('en')} of ${pagination.total.toLocaleString('en')}, newest first.</p>`;
  const pages = pager(pagination, (page) => logLink(base, page), {
    label: 'Delivery log pages',
    words: ['Newer', 'Older'],
  });
  return html`${range}<div class="table-wrap"><table class="stacked delivery-log">
  <caption class="sr-only">Recent webhook deliveries, newest first</caption>
  <thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last response</th><th scope="col">Failure reason</th><th scope="col">Next attempt</th><th scope="col">Created</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
  ${groups}
</table></div>${pages}`;
}

/** The Delivery page showing page `page` of the log, at the log. */
export function logLink(base: string, page: number): string {
  return `${base}${page > 1 ? `?log=${page}` : ''}#log-title`;
}

/**
 * A delivery in words, for the names of its row's controls, which a screen reader lists
 * without their rows: `content.created of first-light, 2026-11-28 09:34:46 UTC`.
 */
function describe(delivery: LoggedDelivery): string {
  const slug = parsePayload(delivery.payload)?.data?.slug;
  const when = `${delivery.createdAt.slice(0, 10)} ${delivery.createdAt.slice(11, 19)} UTC`;
  return `${delivery.event}${typeof slug === 'string' ? ` of ${slug}` : ''}, ${when}`;
}

/** A box that may scroll: a keyboard can reach it to scroll it, and it is named when reached. */
function scrollable(label: string): SafeHtml {
  return html` tabindex="0" role="region" aria-label="${label}"`;
}

/** The article an event is about, from its payload: `first-light` for content.created. */
function subject(delivery: LoggedDelivery): SafeHtml | '' {
  const slug = parsePayload(delivery.payload)?.data?.slug;
  return typeof slug === 'string' ? html`<br><code class="muted">${slug}</code>` : '';
}

/** Why the delivery has not succeeded (yet): the receiver's status, or why nothing was answered. */
function failureReason(delivery: LoggedDelivery): SafeHtml | string {
  if (delivery.status === 'succeeded' || !delivery.lastError) return '—';
  return html`<span class="failure">${delivery.lastError}</span>`;
}

function nextAttempt(delivery: LoggedDelivery, now: number): SafeHtml | string {
  if (delivery.status === 'failed') return 'none: Retry sends it again';
  if (delivery.status !== 'pending' || !delivery.nextAttemptAt) return '—';
  if (Date.parse(delivery.nextAttemptAt) <= now) return 'due now';
  return timeTag(delivery.nextAttemptAt);
}

/** The disclosure: the payload as sent, pretty-printed, and the last attempt's answer. */
function detail(delivery: LoggedDelivery): SafeHtml {
  const parsed = parsePayload(delivery.payload);
  const payload = parsed ? JSON.stringify(parsed, null, 2) : delivery.payload;
  return html`<details class="delivery-detail" id="delivery-detail-${delivery.id}">
    <summary>Payload and last response<span class="sr-only"> of ${describe(delivery)}</span></summary>
    <div class="detail-grid">
      <section>
        <h4>Payload</h4>
        <pre class="code-block"${scrollable(`Payload of ${describe(delivery)}`)}><code>${payload}</code></pre>
        <p class="muted">Header <code>webhook-id: ${delivery.webhookId}</code>, the same on every attempt.</p>
      </section>
      <section>
        <h4>Last response</h4>
        ${lastResponse(delivery)}
      </section>
    </div>
  </details>`;
}

function lastResponse(delivery: LoggedDelivery): SafeHtml {
  const last = delivery.log.at(-1);
  if (!last) return html`<p>Not sent yet.</p>`;
  const answer = last.statusCode !== null ? html`HTTP <strong>${last.statusCode}</strong>` : 'No answer';
  const body = last.responseBody ?? '';
  const shown = body.length > BODY_PREVIEW ? `${body.slice(0, BODY_PREVIEW)}…` : body;
  return html`<p>${answer} to attempt ${last.attempt}, ${timeTag(last.startedAt)}, after ${last.durationMs} ms.</p>
    ${last.error ? html`<p class="failure">${last.error}</p>` : ''}
    ${
      body
        ? html`<pre class="code-block"${scrollable(`Last response to ${describe(delivery)}`)}><code>${shown}</code></pre>${
            body.length > BODY_PREVIEW
              ? html`<p class="muted">The first ${BODY_PREVIEW} of ${body.length} characters.</p>`
              : ''
          }`
        : html`<p class="muted">The body was empty.</p>`
    }`;
}

function parsePayload(payload: string): { data?: Record<string, unknown> } | undefined {
  try {
    return JSON.parse(payload) as { data?: Record<string, unknown> };
  } catch {
    return undefined;
  }
}
