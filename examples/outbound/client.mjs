/**
 * The outbound client: before each call it waits for its own copy of the API's published limit to
 * admit it (`wait` from @ratekeeper/core). All calls are queued at once; `wait` books each at the first
 * instant its token is there (first come, first served), so the batch finishes in the least time the
 * limit allows: (calls − capacity + margin) / refillPerSecond seconds.
 *
 * Why a margin. The API's bucket starts draining when the first calls *arrive*; the client's, when it
 * sends them. Calls that take longer on the way (a new connection, a slow hop) arrive late, the API's
 * full bucket wastes the refill meanwhile, and a later call sent on time would find it empty. Keeping
 * `margin` tokens of the burst unused (default 2) absorbs up to margin / refillPerSecond of such delay
 * (100 ms at 20 per second) for a cost of the same time once per batch.
 *
 * `naive: true` fires every call at once instead, for comparison: the API answers most of them 429.
 */
import { TokenBucketLimiter, wait } from '@ratekeeper/core';

/** callAll makes `calls` requests to `url` and resolves to { statuses, sentAtMs } (ms after the start). */
export async function callAll(url, calls, { capacity, refillPerSecond, margin = 2, naive = false }) {
  const limiter = new TokenBucketLimiter({ capacity: Math.max(1, capacity - margin), refillPerSecond, name: 'outbound' });
  const start = performance.now();
  const sentAtMs = [];
  const statuses = await Promise.all(
    Array.from({ length: calls }, async () => {
      if (!naive) await wait(limiter, 'api');
      sentAtMs.push(performance.now() - start);
      const res = await fetch(url);
      await res.arrayBuffer();
      return res.status;
    }),
  );
  return { statuses, sentAtMs };
}
