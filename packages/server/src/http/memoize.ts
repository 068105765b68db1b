/** How much a memo may hold before it forgets everything. */
export interface MemoBounds {
  /** Distinct texts. */
  entries: number;
  /**
   * Characters of all texts together. Clients choose the texts (a URL may be as long as the
   * header limit allows), so a bound on entries alone would let a few thousand long ones fill
   * the heap. Values must be no larger than a small multiple of their text.
   */
  chars: number;
}

/**
 * `compute` remembered for distinct strings up to `bounds`, all forgotten at once when full. For
 * what clients send again and again (URLs, Authorization and Accept-Encoding headers): each
 * request brings a new string of the same text, and hashing it once costs far less than parsing
 * it again. A flood of distinct texts only makes the memo start over more often.
 */
export function memoize<V>(bounds: MemoBounds, compute: (text: string) => V): (text: string) => V {
  const known = new Map<string, V>();
  let chars = 0;
  return (text) => {
    let value = known.get(text);
    if (value === undefined && !known.has(text)) {
      value = compute(text);
      // Longer than a whole memo: computed every time, never kept.
      if (text.length > bounds.chars) return value;
      if (known.size >= bounds.entries || chars + text.length > bounds.chars) {
        known.clear();
        chars = 0;
      }
      known.set(text, value);
      chars += text.length;
    }
    return value as V;
  };
}
