/**
 * The memory store's eviction order, as a pure function over the live keys of a full table (in table
 * order, the oldest first): the keys with the most room go first. Room is ranked by the fill (the
 * fraction of the limit a key holds at the sweep, from its algorithm's `fill`), then by the empty
 * instant (the nearer first), then by age (the older first). A blocked key has the highest fill, so a
 * flood of fresh keys, each holding one request, is evicted before it whatever the algorithm; the
 * empty instant alone could not tell them apart, since every key counted in one window shares it.
 */
import { kthSmallest } from './select.js';

/**
 * evictionMask marks (with 1) the `count` keys, of the first `live` entries of `fills` and `times`,
 * that the order above evicts first. Two linear-time selections and three passes: expected O(live).
 */
export function evictionMask(fills: Float64Array, times: Float64Array, live: number, count: number): Uint8Array {
  const mask = new Uint8Array(live);
  if (count >= live) return mask.fill(1);
  const fillCut = kthSmallest(fills.slice(0, live), count - 1);
  let need = count;
  let tied = 0;
  for (let i = 0; i < live; i++) {
    const fill = fills[i] as number;
    if (fill < fillCut) {
      mask[i] = 1;
      need--;
    } else if (fill === fillCut) tied++;
  }
  // Among the keys at the cut's fill, the `need` nearest to empty, the oldest first among equals.
  const tiedTimes = new Float64Array(tied);
  for (let i = 0, j = 0; i < live; i++) if (fills[i] === fillCut) tiedTimes[j++] = times[i] as number;
  const timeCut = kthSmallest(tiedTimes, need - 1);
  let ties = need;
  for (let i = 0; i < live; i++) if (fills[i] === fillCut && (times[i] as number) < timeCut) ties--;
  for (let i = 0; i < live; i++) {
    if (fills[i] !== fillCut) continue;
    const at = times[i] as number;
    if (at < timeCut || (at === timeCut && ties-- > 0)) mask[i] = 1;
  }
  return mask;
}
