import { Webhook } from 'standardwebhooks';

/**
 * The `webhook-signature` header: one `v1,<base64>` per secret, space-separated, as the
 * Standard Webhooks scheme allows, so a receiver holding either secret verifies during a
 * rotation.
 */
export function signatureHeader(
  secrets: string[],
  messageId: string,
  timestamp: Date,
  payload: string,
): string {
  return secrets.map((secret) => new Webhook(secret).sign(messageId, timestamp, payload)).join(' ');
}
