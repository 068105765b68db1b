import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** How each kind of credential begins, so a token says what it is (and a mix-up is named). */
export const TOKEN_PREFIXES = { admin: 'folio_admin_', content: 'folio_ck_', preview: 'folio_pk_' } as const;

/**
 * What a refused credential's message adds when the token is of the other API's kind: sent
 * where it does not belong, it would otherwise read as a typo.
 */
export function credentialMixUp(token: string, expected: 'admin' | 'key'): string {
  const isKey = token.startsWith(TOKEN_PREFIXES.content) || token.startsWith(TOKEN_PREFIXES.preview);
  if (expected === 'admin' && isKey) {
    return ': this looks like a content or preview key, which is for the delivery API (/api/v1); the management API takes the admin token';
  }
  if (expected === 'key' && token.startsWith(TOKEN_PREFIXES.admin)) {
    return ': this looks like an admin token, which is for the management API (/admin/v1) and the dashboard; the delivery API takes a content key (folio_ck_…) or a preview key (folio_pk_…)';
  }
  return '';
}

/** A secret token: a recognisable prefix and 32 random bytes, base64url. */
export function generateToken(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

/** A short random identifier with a type prefix, e.g. `prj_…`. */
export function generateId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, '').slice(0, 16).toLowerCase()}${randomBytes(2).toString('hex')}`;
}

/** SHA-256, hex: tokens are stored only as this hash. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Compares two hex hashes in constant time. */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
