/**
 * MUTANTS of the GCRA alias: each builds a token bucket from GCRA parameters with one classic mapping
 * slip, to show the identity property catches it:
 * - `burstBeyondFirst` reads `burst` as redis-cell's max_burst (requests beyond the first), so the
 *   bucket holds burst + 1;
 * - `intervalAsRate` passes the emission interval where the rate goes (refillPerSecond = T).
 */
import { type Clock, TokenBucketLimiter } from '../../src/index.js';

export const burstBeyondFirst = (T: number, burst: number, clock: Clock) => new TokenBucketLimiter({ capacity: burst + 1, refillPerSecond: 1000 / T, clock });
export const intervalAsRate = (T: number, burst: number, clock: Clock) => new TokenBucketLimiter({ capacity: burst, refillPerSecond: Math.min(T, 1e6), clock });
