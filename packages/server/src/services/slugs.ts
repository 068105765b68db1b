/**
 * A slug as stored and looked up: NFC, so `café` typed composed or decomposed is one slug and
 * uniqueness holds on what a reader sees (contract: "Slugs are normalized to NFC").
 */
export function normalizeSlug(slug: string): string {
  return slug.normalize('NFC');
}
