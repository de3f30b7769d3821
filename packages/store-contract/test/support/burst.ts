/**
 * inProcessBurst: the burst (src/processes/burst-checks.ts) on one store in this process, for the
 * package's own tests: each "worker" is a limiter of its own on the shared store, all their consumes in
 * flight at once. A store whose consume is not atomic across calls in flight (wrapped's 'racy')
 * over-admits here as it would across processes.
 */
import {
  CompositeLimiter,
  ConcurrencyLimiter,
  FirstRequestWindowLimiter,
  FixedWindowLimiter,
  type Mode,
  type RateLimiter,
  SlidingLogLimiter,
  SlidingWindowLimiter,
  type Store,
  TokenBucketLimiter,
} from '@ratekeeper/core';
import type { Burst, BurstMember, BurstReport } from '../../src/index.js';

let names = 0;

function member(spec: BurstMember, store: Store<Mode>, name: string): RateLimiter<Mode> {
  const o = { store, name };
  if (spec.algorithm === 'token-bucket') return new TokenBucketLimiter<Mode>({ ...o, capacity: spec.capacity, refillPerSecond: spec.refillPerSecond });
  if (spec.algorithm === 'concurrency') return new ConcurrencyLimiter<Mode>({ ...o, limit: spec.limit });
  if (spec.algorithm === 'sliding-window') return new SlidingWindowLimiter<Mode>({ ...o, limit: spec.limit, windowMs: spec.windowMs });
  if (spec.algorithm === 'sliding-log') return new SlidingLogLimiter<Mode>({ ...o, limit: spec.limit, windowMs: spec.windowMs });
  if (spec.algorithm === 'first-request-window') return new FirstRequestWindowLimiter<Mode>({ ...o, limit: spec.limit, windowMs: spec.windowMs });
  return new FixedWindowLimiter<Mode>({ ...o, limit: spec.limit, windowMs: spec.windowMs });
}

export async function inProcessBurst(store: Store, burst: Burst): Promise<BurstReport[]> {
  const run = names++;
  const workers = Array.from({ length: burst.workers }, () => {
    const members = burst.members.map((m, i) => member(m, store as Store<Mode>, `burst${run}-${i}`));
    return members.length === 1 ? (members[0] as RateLimiter<Mode>) : new CompositeLimiter<Mode>(members);
  });
  if (burst.resetFirst) for (const w of workers) await w.reset(burst.key);
  return Promise.all(
    workers.map(async (limiter) => {
      const decisions = await Promise.all(Array.from({ length: burst.requests }, () => limiter.consume(burst.key)));
      return { admitted: decisions.filter((d) => d.allowed).length, failed: decisions.filter((d) => d.failure !== undefined).length, failures: [] };
    }),
  );
}
