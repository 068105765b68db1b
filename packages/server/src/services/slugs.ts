import { SLUG_MAX_LENGTH } from '@folio/schema';
import { AppError } from '../errors.ts';

/**
 * A slug as stored and looked up: NFC, so `café` typed composed or decomposed is one slug and
 * uniqueness holds on what a reader sees (contract: "Slugs are normalized to NFC").
 */
export function normalizeSlug(slug: string): string {
  return slug.normalize('NFC');
}

/**
 * A slug to store, at `path` in the body: normalized, and within the length limit counted in
 * NFC, which the schema cannot check (é may arrive as two code points, U+0958 becomes two).
 */
export function storedSlug(slug: string, path: string): string {
  const normalized = normalizeSlug(slug);
  let length = 0;
  for (const _ of normalized) length++;
  if (length > SLUG_MAX_LENGTH) {
    const why = `must have at most ${SLUG_MAX_LENGTH} characters once normalized to NFC (it has ${length})`;
    throw new AppError('invalid_body', `${path.slice(1).replaceAll('/', '.')} ${why}.`, [
      { path, message: why },
    ]);
  }
  return normalized;
}
