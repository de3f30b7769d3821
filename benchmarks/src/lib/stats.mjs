// Order statistics for benchmark samples. Medians are the figures reported: on a shared machine the
// noise only ever adds time and comes in bursts, which move a median far less than a mean. Each
// median comes with a distribution-free ~95 % confidence interval (the order statistics at ranks
// n/2 ± 0.98·√n), so a reader can see how far to trust it without assuming any distribution.

/** quantile is the q-quantile (0 ≤ q ≤ 1) of `values`, interpolating linearly between ranks. */
export function quantile(values, q) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

export const median = (values) => quantile(values, 0.5);

/** medianInterval is a ~95 % confidence interval [low, high] for the median of `values`. */
export function medianInterval(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const k = Math.max(0, Math.floor((n - 1.96 * Math.sqrt(n)) / 2));
  return [sorted[k] ?? NaN, sorted[n - 1 - k] ?? NaN];
}
