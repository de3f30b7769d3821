/**
 * closestName: the "did you mean" of an unknown option. A name is close to a known one when at most
 * two edits turn one into the other, counting an insertion, a deletion, a substitution or the swap of
 * two adjacent letters as one edit each (optimal string alignment, the restricted Damerau-Levenshtein
 * distance), ignoring case: `limt`, `windowMS`, `hedaers`, `skp`. A name of four letters or fewer
 * may differ by one edit only, so that a short name is not "corrected" into an unrelated one (`id` is
 * no typo of `key`). The nearest name wins; on a tie, the first in `known`'s order. A far-off name gets
 * no suggestion: an honest "unknown option" beats a wrong guess.
 */

/** MAX_EDITS is the most edits between a typo and the name it suggests (one for names of four letters or fewer). */
export const MAX_EDITS = 2;
const SHORT = 4;

/** closestName answers the known name `name` is most likely a typo of, or undefined when none is close. */
export function closestName(name: string, known: Iterable<string>): string | undefined {
  const bound = name.length <= SHORT ? 1 : MAX_EDITS;
  const typed = name.toLowerCase();
  let best: string | undefined;
  let bestEdits = bound + 1;
  for (const candidate of known) {
    if (candidate === name) continue;
    const edits = editDistance(typed, candidate.toLowerCase(), bestEdits);
    if (edits < bestEdits) {
      best = candidate;
      bestEdits = edits;
    }
  }
  return best;
}

/**
 * editDistance is the optimal string alignment distance between `a` and `b`, or `cap` when it is at
 * least `cap` (a length difference of `cap` or more is not even compared).
 */
export function editDistance(a: string, b: string, cap = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) >= cap) return cap;
  // Three rows of the dynamic programme: the one before last (for swaps), the last, the current.
  let before: number[] = [];
  let last = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const same = a[i - 1] === b[j - 1];
      let d = Math.min((last[j] as number) + 1, (row[j - 1] as number) + 1, (last[j - 1] as number) + (same ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, (before[j - 2] as number) + 1);
      row.push(d);
    }
    before = last;
    last = row;
  }
  return Math.min(last[b.length] as number, cap);
}
