/**
 * `compute` remembered for up to `limit` distinct strings, all forgotten at once when full. For
 * what clients send again and again (URLs, Authorization and Accept-Encoding headers): each
 * request brings a new string of the same text, and hashing it once costs far less than parsing
 * it again.
 */
export function memoize<V>(limit: number, compute: (text: string) => V): (text: string) => V {
  const known = new Map<string, V>();
  return (text) => {
    let value = known.get(text);
    if (value === undefined && !known.has(text)) {
      value = compute(text);
      if (known.size >= limit) known.clear();
      known.set(text, value);
    }
    return value as V;
  };
}
