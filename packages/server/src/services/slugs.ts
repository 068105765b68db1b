import { SlugSchema } from '@folio/schema';
import { AppError } from '../errors.ts';

/**
 * A slug as stored and looked up: NFC, so `café` typed composed or decomposed is one slug and
 * uniqueness holds on what a reader sees (contract: "Slugs are normalized to NFC").
 */
export function normalizeSlug(slug: string): string {
  return slug.normalize('NFC');
}

const SLUG_MAX = SlugSchema.maxLength!;

/**
 * A slug to store, at `path` in the body: normalized, and still within the schema's length,
 * which the schema checked before normalizing (some characters, such as U+0958, decompose).
 */
export function storedSlug(slug: string, path: string): string {
  const normalized = normalizeSlug(slug);
  let length = 0;
  for (const _ of normalized) length++;
  if (length > SLUG_MAX) {
    const why = `must have at most ${SLUG_MAX} characters once normalized to NFC (it has ${length})`;
    throw new AppError('invalid_body', `${path.slice(1).replaceAll('/', '.')} ${why}.`, [
      { path, message: why },
    ]);
  }
  return normalized;
}
