// The numbers behind docs/algorithms.svg: every algorithm on the same traffic, on a ManualClock, one
// key. Pure: no I/O, no real clock, the same answer on every run; svg.mjs only draws what this returns
// and chart.test.mjs checks its totals.
//
// All four limiters grant the same quota, 10 per second (the token bucket: 10 tokens refilled at 10
// per second), so every difference in the picture is the algorithm's. The traffic, in milliseconds
// from a whole second (fixed and sliding windows align to whole seconds):
//   0–2000     a steady stream at 12.5 per second (one request every 80 ms), a little over the quota;
//   2000–2900  idle;
//   2900–3100  a burst across the window boundary at 3000: one request every 5 ms;
//   3100–5000  idle;
//   5000–6000  a steady stream at 25 per second (one every 40 ms).
import { FixedWindowLimiter, ManualClock, SlidingLogLimiter, SlidingWindowLimiter, TokenBucketLimiter } from '@ratekeeper/core';

export const T0 = 1_700_000_000_000; // a whole second
export const DURATION_MS = 6000;
export const BIN_MS = 100;
export const QUOTA = { limit: 10, windowMs: 1000 };

export const PHASES = [
  { from: 0, to: 2000, label: 'steady 12.5/s' },
  { from: 2000, to: 2900, label: '' }, // idle too; unlabelled, the burst's label needs the room
  { from: 2900, to: 3100, label: 'burst across a boundary' },
  { from: 3100, to: 5000, label: 'idle' },
  { from: 5000, to: 6000, label: 'steady 25/s' },
];

export const ALGORITHMS = [
  { id: 'token-bucket', label: 'token bucket (10, refilled 10/s)', make: (clock) => new TokenBucketLimiter({ capacity: 10, refillPerSecond: 10, clock }) },
  { id: 'fixed-window', label: 'fixed window (10 per second)', make: (clock) => new FixedWindowLimiter({ ...QUOTA, clock }) },
  { id: 'sliding-window', label: 'sliding-window counter (10 per second)', make: (clock) => new SlidingWindowLimiter({ ...QUOTA, clock }) },
  { id: 'sliding-log', label: 'sliding log (10 per any second)', make: (clock) => new SlidingLogLimiter({ ...QUOTA, clock }) },
];

/** requestTimes lists the scenario's request instants, in ms from T0, in order. */
export function requestTimes() {
  const times = [];
  for (let t = 0; t < 2000; t += 80) times.push(t);
  for (let t = 2900; t < 3100; t += 5) times.push(t);
  for (let t = 5000; t < 6000; t += 40) times.push(t);
  return times;
}

/**
 * chartSeries runs every algorithm over the scenario and returns, per algorithm, each request's verdict,
 * the admitted and denied counts per BIN_MS bin, the totals, and the most admitted in any interval
 * of 1000 ms (the quota's window, at any alignment).
 */
export function chartSeries() {
  const times = requestTimes();
  const bins = DURATION_MS / BIN_MS;
  const algorithms = ALGORITHMS.map(({ id, label, make }) => {
    const clock = new ManualClock(T0);
    const limiter = make(clock);
    const admittedPerBin = new Array(bins).fill(0);
    const deniedPerBin = new Array(bins).fill(0);
    const verdicts = times.map((t) => {
      clock.set(T0 + t);
      const allowed = limiter.consume('client').allowed;
      (allowed ? admittedPerBin : deniedPerBin)[Math.floor(t / BIN_MS)]++;
      return allowed;
    });
    const admittedAt = times.filter((_, i) => verdicts[i]);
    return {
      id,
      label,
      verdicts,
      admittedPerBin,
      deniedPerBin,
      admitted: admittedAt.length,
      denied: times.length - admittedAt.length,
      peakPerWindow: peak(admittedAt, QUOTA.windowMs),
    };
  });
  return { times, binMs: BIN_MS, durationMs: DURATION_MS, phases: PHASES, algorithms };
}

/** peak is the most instants in any half-open interval [a, a + span). */
function peak(sorted, span) {
  let best = 0;
  let from = 0;
  for (let to = 0; to < sorted.length; to++) {
    while (sorted[to] - sorted[from] >= span) from++;
    best = Math.max(best, to - from + 1);
  }
  return best;
}
