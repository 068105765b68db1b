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

/**
 * `memoize` with the last text and its value in front, for a header that most requests send with
 * the same text (a website's one key, its browser's one `Accept-Encoding`). A map lookup hashes
 * the new string of each request, character by character; comparing it with the last text costs
 * a fraction of that (BENCHMARKS.md, How the delivery path works, "At most one lookup per request").
 */
export function memoizeLast<V>(bounds: MemoBounds, compute: (text: string) => V): (text: string) => V {
  const memo = memoize(bounds, compute);
  let lastText: string | undefined;
  let lastValue: V;
  return (text) => {
    if (text !== lastText) {
      lastValue = memo(text);
      lastText = text;
    }
    return lastValue;
  };
}
