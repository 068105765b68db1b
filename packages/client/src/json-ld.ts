/**
 * Serializes structured data for an inline `<script type="application/ld+json">` (seed rule
 * 4): every `<` becomes `\u003c`, so neither `</script>` nor `<!--` can end or bend the script,
 * and U+2028/U+2029 are escaped for older JavaScript parsers. `JSON.parse` gives the value back.
 * @example
 * serializeJsonLd({ headline: '</script>' }); // '{"headline":"\\u003c/script>"}'
 */
export function serializeJsonLd(value: unknown): string | undefined {
  const json = JSON.stringify(value) as string | undefined;
  if (json === undefined) return undefined;
  return json
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
