import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const SEALED_PREFIX = 'sealed:v1:';

/**
 * Keeps webhook secrets encrypted at rest (AES-256-GCM) when FOLIO_SECRET_KEY is set. Values
 * stored before a key was configured stay readable and are sealed on their next write.
 */
/**
 * A stored secret this process cannot open: FOLIO_SECRET_KEY unset, or another key than the one
 * it was sealed with. A setting of this process, not a fault of the delivery or the receiver.
 */
export class SecretUnavailableError extends Error {
  override name = 'SecretUnavailableError';
}

export interface SecretBox {
  seal(secret: string): string;
  open(stored: string): string;
}

export function createSecretBox(key: Buffer | undefined): SecretBox {
  return {
    seal(secret) {
      if (!key) return secret;
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return `${SEALED_PREFIX}${[iv, cipher.getAuthTag(), sealed].map((part) => part.toString('base64url')).join('.')}`;
    },
    open(stored) {
      if (!stored.startsWith(SEALED_PREFIX)) return stored;
      if (!key) {
        throw new SecretUnavailableError(
          'A webhook secret is stored encrypted but FOLIO_SECRET_KEY is not set.',
        );
      }
      const [iv, tag, sealed] = stored
        .slice(SEALED_PREFIX.length)
        .split('.')
        .map((part) => Buffer.from(part, 'base64url'));
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv!);
        decipher.setAuthTag(tag!);
        return Buffer.concat([decipher.update(sealed!), decipher.final()]).toString('utf8');
      } catch {
        // GCM's own words ("unable to authenticate data") do not say which setting is wrong.
        throw new SecretUnavailableError(
          'A webhook secret cannot be decrypted: FOLIO_SECRET_KEY is not the key it was stored with.',
        );
      }
    },
  };
}

/** A webhook signing secret: `whsec_` and 32 random bytes, base64 (Standard Webhooks). */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
