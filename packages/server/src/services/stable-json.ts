/** JSON with object keys sorted, so two values that mean the same compare equal as text. */
export function stableStringify(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
    // No prototype, so a "__proto__" key (an ordinary key in parsed JSON) stays a key.
    const sorted: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(item).sort()) sorted[key] = (item as Record<string, unknown>)[key];
    return sorted;
  });
}
