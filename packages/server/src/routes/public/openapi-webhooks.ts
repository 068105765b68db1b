import { WEBHOOK_EVENT_BODIES, WEBHOOK_EVENT_NAMES, type WebhookEventName } from '@folio/schema';

/**
 * The OpenAPI document's `webhooks`: what Folio POSTs to a project's webhook URL, one entry per
 * event, with the body schema the dispatcher's payloads are tested against. A receiver's
 * developer (or a code generator) reads the payloads here instead of in prose.
 */
export function openapiWebhooks(): Record<WebhookEventName, object> {
  return Object.fromEntries(WEBHOOK_EVENT_NAMES.map((name) => [name, { post: operation(name) }])) as Record<
    WebhookEventName,
    object
  >;
}

const header = (name: string, description: string) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
});

/** The security scheme the events' operations name: the Standard Webhooks signature. */
export const WEBHOOK_SIGNATURE_SCHEME = {
  type: 'apiKey',
  in: 'header',
  name: 'webhook-signature',
  description:
    'v1,<base64 HMAC-SHA256> over `webhook-id.webhook-timestamp.body`, keyed by the project’s whsec_ ' +
    'secret (Standard Webhooks, verifiable with the `standardwebhooks` library); sent once the ' +
    'secret was revealed, absent before',
} as const;

// The other two Standard Webhooks headers; the signature is the security scheme's.
const SIGNED_HEADERS = [
  header('webhook-id', 'msg_…: the same on every retry of one event; deduplicate by it'),
  header('webhook-timestamp', 'Unix seconds of this attempt'),
];

function operation(name: WebhookEventName): object {
  const body = WEBHOOK_EVENT_BODIES[name];
  const camel = name.replace(/[.](\w)/g, (_, letter: string) => letter.toUpperCase());
  return {
    operationId: `receive${camel.charAt(0).toUpperCase()}${camel.slice(1)}`,
    summary: body.description,
    description:
      'Sent to the project’s webhook URL. Verify the signature against the raw body, answer any 2xx ' +
      'within the timeout; anything else is retried on the schedule (410 Gone disables the webhook). ' +
      'At-least-once and unordered: refetch what the event names.',
    tags: ['Webhooks'],
    security: [{ webhookSignature: [] }],
    parameters: SIGNED_HEADERS,
    requestBody: { required: true, content: { 'application/json': { schema: body } } },
    responses: {
      '2XX': { description: 'Received: the delivery succeeded' },
      '401': { description: 'The signature did not verify: retried on the schedule' },
      '410': { description: 'Gone: the delivery fails and the webhook is disabled' },
    },
  };
}
