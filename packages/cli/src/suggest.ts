/** "Did you mean …?" for a mistyped command: the closest known name by edit distance. */

/** Edits (insert, delete, substitute, swap two neighbours) to turn `a` into `b`. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => d[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      (d[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}

/** The candidate closest to `typed`, if it is close enough to be what was meant: at most two
 * edits, and fewer than half the word (so "ab" does not suggest "fts"). A prefix counts too. */
export function closest(typed: string, candidates: readonly string[]): string | undefined {
  const word = typed.toLowerCase();
  let best: { name: string; score: number } | undefined;
  for (const name of candidates) {
    const score = name.startsWith(word) && word.length >= 3 ? 0.5 : distance(word, name);
    if (score <= 2 && score < Math.max(1, name.length / 2) && (!best || score < best.score))
      best = { name, score };
  }
  return best?.name;
}
