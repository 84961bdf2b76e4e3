// "Did you mean" suggestions for misspelt keys, codes, names and enum values.

/** Optimal-string-alignment distance: Levenshtein plus adjacent transpositions ('atuh' → 'auth' is 1). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** The closest candidate, when it is close enough to be a likely typo; case-only differences always count. */
export function closest(input: string, candidates: Iterable<string>): string | undefined {
  const lower = input.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    if (candidate === input) continue;
    if (candidate.toLowerCase() === lower) return candidate;
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const allowed = input.length <= 3 ? 1 : input.length <= 6 ? 2 : 3;
  return bestDistance <= allowed ? best : undefined;
}

/** `did you mean 'auth'?` or, with no close candidate, the list to choose from. */
export function suggestionHint(input: string, candidates: readonly string[], listLabel: string): string {
  const match = closest(input, candidates);
  if (match !== undefined) return `did you mean '${match}'?`;
  return candidates.length === 0 ? `remove it` : `${listLabel}: ${candidates.join(', ')}`;
}
