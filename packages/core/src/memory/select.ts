/**
 * kthSmallest finds the k-th smallest value (0-based) of `values` in expected linear time, reordering
 * the array (Hoare's selection). The memory store uses it to find how near to empty the keys it must
 * evict are: a full sort of the table was most of the cost of a sweep under a key flood. Hoare's
 * two-sided partition keeps equal values spread over both sides, so a table of identical instants
 * (every key of one window) costs no more than distinct ones.
 */
export function kthSmallest(values: Float64Array, k: number): number {
  let lo = 0;
  let hi = values.length - 1;
  while (lo < hi) {
    const pivot = values[(lo + hi) >> 1] as number;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while ((values[i] as number) < pivot) i++;
      while ((values[j] as number) > pivot) j--;
      if (i <= j) {
        const swap = values[i] as number;
        values[i++] = values[j] as number;
        values[j--] = swap;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return values[k] as number;
  }
  return values[k] as number;
}
