/**
 * The candidate a mistyped word most likely meant, as `git` and `gh` suggest one: the nearest by
 * edits (a swap of two neighbours counts as one), if it is at most a third of the word away.
 */
export function closestMatch(word: string, candidates: Iterable<string>): string | undefined {
  const most = Math.max(1, Math.floor(word.length / 3));
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of new Set(candidates)) {
    const distance = editDistance(word, candidate);
    if (distance <= most && (!best || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        distance = Math.min(distance, rows[i - 2]![j - 2]! + 1);
      }
      rows[i]![j] = distance;
    }
  }
  return rows[a.length]![b.length]!;
}
