import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

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
