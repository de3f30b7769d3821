/**
 * fallbackPolicy: the policy each process's fallback enforces while Redis cannot decide, with the
 * `fallbackDivisor` option. During an outage every process decides alone, so N processes with the full
 * policy admit N times the limit. Dividing by N (each process gets capacity ⌊C/N⌋ refilled at R/N, or
 * ⌊L/N⌋ per window, never less than 1) holds the sum near the limit. Pure; divisor 1 is the policy itself.
 */
import type { Policy } from '@ratekeeper/core';

export function fallbackPolicy<P extends Policy>(policy: P, divisor: number): P {
  if (divisor === 1) return policy;
  const share = Math.max(1, Math.floor(policy.limit / divisor));
  if (policy.algorithm !== 'token-bucket') return Object.freeze({ ...(policy as Policy), limit: share }) as P;
  const refillPerSecond = policy.refillPerSecond / divisor;
  const intervalMs = 1000 / refillPerSecond;
  const burstMs = share * intervalMs;
  return Object.freeze({ ...(policy as Policy), capacity: share, refillPerSecond, intervalMs, burstMs, limit: share, windowMs: burstMs }) as P;
}
