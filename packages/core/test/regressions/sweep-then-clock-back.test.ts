/**
 * Regression: the memory store drops a key's state once it is empty (a full bucket), which is
 * equivalent to no state only at later instants. A clock that then stepped back before that instant
 * found a fresh bucket and admitted a whole burst again, once per sweep: 20 admissions where C + R·T
 * allows 10. Bindings now read instants earlier than their latest sweep as the sweep's instant.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock, MemoryStore, TokenBucketLimiter } from '../../src/index.js';

describe('state dropped by a sweep, then a clock step back', () => {
  const t0 = 1_700_000_000_000;

  function victimAfterRounds(rounds: number) {
    const clock = new ManualClock(t0);
    const limiter = new TokenBucketLimiter({ capacity: 5, refillPerSecond: 1, clock, store: new MemoryStore({ maxKeys: 2 }) });
    let admitted = 0;
    for (let round = 0; round < rounds; round++) {
      clock.set(t0);
      while (limiter.allow('victim')) admitted++;
      clock.set(t0 + 5000); // the victim's bucket is full (empty state) again here...
      limiter.allow(`other${round}`); // ...and this new key's sweep drops it
    }
    return { clock, limiter, admitted };
  }

  it('does not hand the dropped key a fresh bucket at the earlier instant', () => {
    // The clock never passed t0 + 5 s: at most C + R·5 s = 10 admissions, not 5 per round.
    expect(victimAfterRounds(4).admitted).toBe(10);
  });

  it('keeps Retry-After exact for the caller whose clock is behind the sweep', () => {
    const { clock, limiter } = victimAfterRounds(3);
    clock.set(t0);
    // The second burst was taken at t0 + 5 s (the sweep's instant); one token is back at t0 + 6 s.
    expect(limiter.consume('victim')).toMatchObject({ allowed: false, retryAfterMs: 6000, resetAfterMs: 10_000 });
    clock.set(t0 + 5999);
    expect(limiter.peek('victim').allowed).toBe(false);
    clock.set(t0 + 6000);
    expect(limiter.peek('victim').allowed).toBe(true);
  });
});
