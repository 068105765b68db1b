import { html, type SafeHtml } from '@folio/client';
import type { ContentKey, Project, Webhook } from '@folio/schema';
import type { Flash } from '../session.ts';
import { type DeliveryLogPage, deliveryLog } from './delivery-log.ts';
import {
  confirmButton,
  copyable,
  csrfField,
  fieldError,
  fieldState,
  formMessage,
  layout,
  type PageContext,
  projectPath,
  timeTag,
  typed,
} from './layout.ts';
import { type TrafficData, trafficCard } from './traffic.ts';

export interface DeliveryPageData {
  project: Project;
  baseUrl: string;
  keys: ContentKey[];
  webhook: Webhook;
  /** The page of the delivery log shown. */
  log: DeliveryLogPage;
  traffic: TrafficData;
  /** The server's clock, to tell a retry that is due from one still waiting. */
  now: number;
}

/** The project's overview, the Delivery page: Connection, Content API keys, Webhook, Last hour. */
export function deliveryPage(context: PageContext, data: DeliveryPageData): string {
  const { project } = data;
  return layout({
    title: `${project.name}: Delivery${data.log.pagination.page > 1 ? ` · Log page ${data.log.pagination.page}` : ''}`,
    context,
    project: { id: project.id, name: project.name, current: 'delivery' },
    body: html`<h1>Delivery <span class="muted">· ${project.name}</span></h1>
<div class="cards">
${connectionCard(data)}
${keysCard(context, data)}
${webhookCard(context, data)}
${trafficCard(data.traffic, `${projectPath(project.id)}/traffic`)}
</div>`,
  });
}

function connectionCard({ project, baseUrl }: DeliveryPageData): SafeHtml {
  const listUrl = `${baseUrl}/api/v1/projects/${encodeURIComponent(project.id)}/content`;
  const curl = `curl -H "Authorization: Bearer $FOLIO_CONTENT_KEY" "${listUrl}"`;
  return html`<section class="card" id="connection" aria-labelledby="connection-title">
  <h2 id="connection-title">Connection</h2>
  <dl class="facts">
    <dt>Project id</dt><dd>${copyable('project-id', project.id, 'project id')}</dd>
    <dt>Base URL</dt><dd>${copyable('base-url', baseUrl, 'base URL')}</dd>
  </dl>
  <p>List the published articles; put a content key in <code>FOLIO_CONTENT_KEY</code> first:</p>
  <pre class="command">${copyable('curl-line', curl, 'curl command')}</pre>
  <p>Every endpoint, with its parameters and answers: the <a href="/docs">API reference</a>.</p>
  ${
    project.websiteUrl
      ? ''
      : html`<p id="sitemap-needs-url">The sitemap needs a website URL: <a href="${projectPath(project.id)}/settings#site">set it under Site and URLs</a>.</p>`
  }
</section>`;
}

function keysCard({ flash, csrfToken }: PageContext, { project, keys }: DeliveryPageData): SafeHtml {
  const base = projectPath(project.id);
  const created =
    flash?.secret?.label === 'content-key' || flash?.secret?.label === 'preview-key'
      ? flash.secret
      : undefined;
  const kind = typed(flash, 'keys', 'kind', 'content');
  const rows = keys.map(
    (key) => html`<tr>
      <th scope="row">${key.name}</th>
      <td data-label="Kind"><span class="status ${key.kind === 'preview' ? 'changed' : 'succeeded'}">${key.kind}</span></td>
      <td data-label="Prefix"><code>${key.prefix}…</code></td>
      <td data-label="Created">${timeTag(key.createdAt)}</td>
      <td data-label="Last used">${timeTag(key.lastUsedAt, 'never')}</td>
      <td class="row-actions">${confirmButton({
        action: `${base}/keys/${encodeURIComponent(key.id)}/revoke`,
        csrfToken,
        label: 'Revoke…',
        question: `Revoke "${key.name}"? Whatever uses it stops getting content at once.`,
        confirmLabel: 'Revoke key',
        small: true,
        subject: key.name,
      })}</td>
    </tr>`,
  );
  return html`<section class="card" id="keys" aria-labelledby="keys-title">
  <h2 id="keys-title">Content API keys</h2>
  ${created ? createdKey(flash, created) : ''}
  <form method="post" action="${base}/keys" class="inline">
    ${csrfField(csrfToken)}
    <label for="key-name">Key name</label>
    <input id="key-name" name="name" required maxlength="200" placeholder="e.g. production site"
      value="${typed(flash, 'keys', 'name', '')}"${fieldState(flash, 'keys', 'name')}>
    ${fieldError(flash, 'keys', 'name')}
    <fieldset class="key-kind">
      <legend>Kind</legend>
      <label><input type="radio" name="kind" value="content"${kind === 'preview' ? '' : html` checked`}${fieldState(flash, 'keys', 'kind')}> <span>Content key <span class="muted">reads published articles: for the site</span></span></label>
      <label><input type="radio" name="kind" value="preview"${kind === 'preview' ? html` checked` : ''}${fieldState(flash, 'keys', 'kind')}> <span>Preview key <span class="muted">reads drafts and unpublished articles too: keep it on a server</span></span></label>
    </fieldset>
    ${fieldError(flash, 'keys', 'kind')}
    <button type="submit" class="button primary">Create key</button>
    ${created ? '' : formMessage(flash, 'keys')}
  </form>
  ${
    keys.length === 0
      ? html`<p>No working keys. A site needs one to read content.</p>`
      : html`<div class="table-wrap"><table class="stacked">
    <caption class="sr-only">Working keys</caption>
    <thead><tr><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">Prefix</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
    <tbody>${rows}</tbody>
  </table></div>`
  }
</section>`;
}

/** A key just made, shown this once, with the outcome of the form that made it. */
function createdKey(flash: Flash | undefined, secret: { label: string; value: string }): SafeHtml {
  const preview = secret.label === 'preview-key';
  return secretBox(
    flash,
    'keys',
    html`<p id="new-key-note"><strong>Your new ${preview ? 'preview' : 'content'} key.</strong> Copy it now: you will not see it again.${preview ? ' It reads drafts: keep it out of browsers and public code.' : ''}</p>
    <p>${copyable('new-key', secret.value, `new ${preview ? 'preview' : 'content'} key`)}</p>`,
    ['new-key-note', 'new-key'],
  );
}

/**
 * A value shown once, with the outcome of `form` first. The page's script focuses the box, whose
 * name reads the outcome and the value, so the next Tab reaches the value's Copy button rather
 * than the controls after it; without the script the outcome still comes before the value.
 */
function secretBox(flash: Flash | undefined, form: string, content: SafeHtml, named: string[]): SafeHtml {
  const labelledBy = [`${form}-status`, ...named].join(' ');
  return html`<div class="once" role="group" aria-labelledby="${labelledBy}" data-outcome>
    ${formMessage(flash, form)}
    ${content}
  </div>`;
}

function webhookCard(context: PageContext, data: DeliveryPageData): SafeHtml {
  const { flash, csrfToken } = context;
  const { project, webhook } = data;
  const base = projectPath(project.id);
  const secret = flash?.secret?.label === 'signing-secret' ? flash.secret.value : undefined;
  const state = !webhook.url
    ? 'No URL set: nothing is sent.'
    : webhook.enabled
      ? 'Each change is sent to this URL.'
      : `Disabled: ${webhook.disabledReason ?? 'unknown reason'}. Save the URL again to enable it.`;
  return html`<section class="card" id="webhook" aria-labelledby="webhook-title">
  <h2 id="webhook-title">Webhook</h2>
  <p class="muted">${state}</p>
  <form method="post" action="${base}/webhook" class="inline">
    ${csrfField(csrfToken)}
    <label for="webhook-url">Webhook URL <span class="muted">(empty removes it)</span></label>
    <input id="webhook-url" name="url" type="url" placeholder="https://www.example.com/webhooks/folio"
      value="${typed(flash, 'webhook', 'url', webhook.url ?? '')}"${fieldState(flash, 'webhook', 'url')}>
    <button type="submit" class="button primary">Save URL</button>
    ${fieldError(flash, 'webhook', 'url')}
    ${formMessage(flash, 'webhook')}
  </form>
  <h3>Signing secret</h3>
  ${
    secret
      ? secretBox(
          flash,
          'webhook-actions',
          html`<p id="signing-secret-note">Signing secret, for your receiver's server-side settings:</p><p>${copyable('signing-secret', secret, 'signing secret')}</p>`,
          ['signing-secret-note', 'signing-secret'],
        )
      : html`<p class="muted">${webhook.signed ? 'Deliveries are signed. Reveal shows the secret.' : 'Deliveries are sent unsigned until the secret is revealed.'}${webhook.secretRotatedAt ? html` Rotated ${timeTag(webhook.secretRotatedAt)}; the previous secret keeps signing for 24 hours.` : ''}</p>`
  }
  <div class="actions">
    <form method="post" action="${base}/webhook/reveal">${csrfField(csrfToken)}<button type="submit" class="button secondary">Reveal</button></form>
    ${confirmButton({
      action: `${base}/webhook/rotate`,
      csrfToken,
      label: 'Rotate…',
      question: 'Make a new signing secret? The old one keeps signing beside it for 24 hours.',
      confirmLabel: 'Rotate secret',
    })}
    <form method="post" action="${base}/webhook/test">${csrfField(csrfToken)}<button type="submit" class="button secondary">Send test event</button></form>
  </div>
  ${secret ? '' : formMessage(flash, 'webhook-actions')}
  <h3 id="log-title">Delivery log</h3>
  <div id="delivery-log" data-refresh="${base}/deliveries${data.log.pagination.page > 1 ? `?page=${data.log.pagination.page}` : ''}" aria-labelledby="log-title">
    ${deliveryLog(context, project, data.log, data.now)}
  </div>
</section>`;
}
