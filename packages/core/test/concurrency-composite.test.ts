/**
 * A concurrency limit inside a CompositeLimiter, on the memory store: all or nothing (a request the
 * rate limit denies takes no lease, and one denied a lease spends no rate), `release` returns the
 * leases only and never refunds the rate, `refund` gives back to the rate members only. The
 * consume-first mutant (members charged before the verdict) is caught by the same check.
 */
import { describe, expect, it } from 'vitest';
import { CompositeLimiter, ConcurrencyLimiter, FixedWindowLimiter, ManualClock, type RateLimiter } from '../src/index.js';
import { ConsumeFirstComposite } from './mutants/consume-first-composite.js';

function members(clock: ManualClock) {
  return {
    rate: new FixedWindowLimiter({ limit: 3, windowMs: 60_000, name: 'rate', clock }),
    inflight: new ConcurrencyLimiter({ limit: 2, name: 'inflight', clock }),
  };
}

/** allOrNothing: two leases fill the concurrency limit; a third request is denied and spends no rate; then the rate runs out and takes no lease. */
function allOrNothing(build: (m: ReturnType<typeof members>) => RateLimiter<'sync'>) {
  const clock = new ManualClock(0);
  const m = members(clock);
  const both = build(m);
  expect(both.allow('k')).toBe(true);
  expect(both.allow('k')).toBe(true);
  expect(both.consume('k')).toMatchObject({ allowed: false, retryAfterMs: 1000 });
  expect(m.rate.peek('k').allowed, 'the rate spent by a request denied a lease').toBe(true);
  m.inflight.release('k', 2);
  expect(both.allow('k')).toBe(true);
  expect(both.consume('k')).toMatchObject({ allowed: false, retryAfterMs: 60_000 });
  expect(m.inflight.peek('k').allowed, 'the leases held after a rate denial').toBe(true);
}

describe('a concurrency limit in a composite (memory store)', () => {
  it('is all or nothing: a request denied a lease spends no rate, one denied by the rate takes no lease', () => {
    allOrNothing((m) => new CompositeLimiter([m.rate, m.inflight]));
  });

  it('the check catches a composite that charges every member before the verdict (mutant)', () => {
    expect(() => allOrNothing((m) => new ConsumeFirstComposite([m.rate, m.inflight]))).toThrow(/the rate spent by a request denied a lease/);
  });

  it('release returns the leases only, refund the rate only', () => {
    const clock = new ManualClock(0);
    const m = members(clock);
    const both = new CompositeLimiter([m.rate, m.inflight]);
    expect(both.allow('k')).toBe(true);
    expect(both.allow('k')).toBe(true);
    const seen = () => [m.rate.peek('k'), m.inflight.peek('k')].map((d) => `${d.allowed}/${d.remaining}`);
    expect(seen()).toEqual(['true/0', 'false/0']);
    both.release!('k');
    expect(seen()).toEqual(['true/0', 'true/0']);
    both.refund('k');
    expect(seen()).toEqual(['true/1', 'true/0']);
  });

  it('reports both policies, and has no release without a lease member', () => {
    const clock = new ManualClock(0);
    const m = members(clock);
    const both = new CompositeLimiter([m.rate, m.inflight]);
    const d = both.consume('k');
    expect(d.parts?.map((p) => `${p.policy.name}:${p.remaining}`)).toEqual(['rate:2', 'inflight:1']);
    expect(typeof new CompositeLimiter([m.rate]).release).toBe('undefined');
    expect(typeof both.release).toBe('function');
  });
});
