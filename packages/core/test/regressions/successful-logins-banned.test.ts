/**
 * Regression: the login recipe (BanLimiter over 5 per 15 minutes, `countOutcome: o => o.status >= 400`)
 * banned a user who never failed. Each request is charged before its outcome is known, so six
 * concurrent successful logins saw the sixth denied; that denial started the hour's ban and the five
 * refunds that followed left it standing. Now a refund that leaves room for the denied cost lifts the
 * ban (core's ban.ts). Tables at one instant with a ManualClock, a property over random interleavings
 * of charges and outcomes for every refundable algorithm, and the old behaviour (mutant) caught by the
 * same checks.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BanLimiter, type Clock, FixedWindowLimiter, ManualClock, type MemoryStore, SlidingWindowLimiter, TokenBucketLimiter } from '../../src/index.js';
import { BanOutlivesRefundStore } from '../mutants/ban-outlives-refund.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = 1_700_000_000_000 - (1_700_000_000_000 % (15 * MIN));

type Make = (clock: Clock, store?: MemoryStore) => BanLimiter;
const LOGINS: readonly [string, Make][] = [
  ['fixed window', (clock, store) => new BanLimiter({ limiter: new FixedWindowLimiter({ limit: 5, windowMs: 15 * MIN, clock, ...(store && { store }) }), banMs: HOUR })],
  ['sliding window', (clock, store) => new BanLimiter({ limiter: new SlidingWindowLimiter({ limit: 5, windowMs: 15 * MIN, clock, ...(store && { store }) }), banMs: HOUR })],
  ['token bucket', (clock, store) => new BanLimiter({ limiter: new TokenBucketLimiter({ capacity: 5, refillPerSecond: 1 / 180, clock, ...(store && { store }) }), banMs: HOUR })],
];

/** concurrentSuccesses charges six logins at once, refunds the five admitted (all succeeded), and answers what the next login gets. */
function concurrentSuccesses(make: Make, store?: MemoryStore): string[] {
  const clock = new ManualClock(T0);
  const login = make(clock, store);
  const seen = Array.from({ length: 6 }, () => login.consume('alice'));
  const problems: string[] = [];
  if (seen.filter((d) => d.allowed).length !== 5) problems.push(`want 5 of 6 admitted, got ${seen.filter((d) => d.allowed).length}`);
  clock.advance(200); // the handlers answer 200; the plan gives each charge back
  for (let i = 0; i < 5; i++) login.refund('alice');
  const next = login.consume('alice');
  if (!next.allowed) problems.push(`the next login was denied for ${next.retryAfterMs} ms`);
  return problems;
}

describe('concurrent successful logins', () => {
  for (const [name, make] of LOGINS) {
    it(`${name}: six at once, all successful, leave no ban: the next login is admitted`, () => {
      expect(concurrentSuccesses(make)).toEqual([]);
    });

    it(`${name}: the same check catches bans that outlive the refunds (mutant)`, () => {
      expect(concurrentSuccesses(make, new BanOutlivesRefundStore())).toEqual(['the next login was denied for 3599800 ms']);
    });

    it(`${name}: six failures ban for the whole hour, with the exact time left`, () => {
      const clock = new ManualClock(T0);
      const login = make(clock);
      expect(Array.from({ length: 6 }, () => login.consume('alice').allowed)).toEqual([true, true, true, true, true, false]);
      clock.advance(30 * MIN);
      expect(login.consume('alice')).toMatchObject({ allowed: false, retryAfterMs: 30 * MIN, remaining: 0 });
      clock.advance(30 * MIN - 1);
      expect(login.consume('alice').retryAfterMs).toBe(1);
      clock.advance(1);
      expect(login.consume('alice').allowed).toBe(true);
    });
  }

  it('a success among four failures lifts the ban its pending charge caused, and the fifth failure still counts', () => {
    const clock = new ManualClock(T0);
    const login = LOGINS[0]![1](clock);
    const outcomes = Array.from({ length: 6 }, () => login.consume('alice').allowed);
    expect(outcomes).toEqual([true, true, true, true, true, false]); // four failures pending, one success pending, one denied
    login.refund('alice'); // the success
    expect(login.consume('alice').allowed).toBe(true); // a fifth attempt: it fails, and counts
    expect(login.consume('alice')).toMatchObject({ allowed: false, retryAfterMs: HOUR }); // five failures counted: banned
    expect(login.peek('alice').retryAfterMs).toBe(HOUR);
  });

  it('a refund that leaves no room for the denied cost keeps the ban', () => {
    const clock = new ManualClock(T0);
    const login = LOGINS[0]![1](clock);
    expect(login.consume('k', 3).allowed).toBe(true);
    expect(login.consume('k', 3)).toMatchObject({ allowed: false, retryAfterMs: HOUR }); // 2 left of 5: banned
    login.refund('k'); // 3 left: a cost of 3 would now fit
    expect(login.consume('k', 3).allowed).toBe(true);
    expect(login.consume('k', 3).allowed).toBe(false);
    login.refund('k'); // 1 left of the 3 the denied request needed: the ban stands
    expect(login.peek('k')).toMatchObject({ allowed: false, retryAfterMs: HOUR });
  });

  it('a refund after the ban has ended changes only the window', () => {
    const clock = new ManualClock(T0);
    const login = LOGINS[0]![1](clock);
    for (let i = 0; i < 6; i++) login.consume('k');
    clock.advance(HOUR);
    login.refund('k');
    expect(login.consume('k').allowed).toBe(true);
  });
});

/**
 * noBanWithoutCountedFailures: at one instant, requests arrive (each charged, or denied) and their
 * outcomes come back in any order (a success refunded, a failure kept). Once every outcome is in, the
 * key is banned only when the failures that count leave no room for one more: exactly when the
 * limiter, without the ban, denies.
 */
function noBanWithoutCountedFailures(make: Make, store?: () => MemoryStore) {
  const events = fc.array(
    fc.oneof(fc.record({ kind: fc.constant('arrive' as const), fails: fc.boolean() }), fc.record({ kind: fc.constant('outcome' as const), which: fc.nat() })),
    { maxLength: 30 },
  );
  return fc.property(events, (list) => {
    const clock = new ManualClock(T0);
    const login = make(clock, store?.());
    const pending: boolean[] = [];
    let failures = 0;
    const settle = (i: number) => {
      const [fails] = pending.splice(i, 1);
      if (fails) failures++;
      else login.refund('k');
    };
    for (const e of list) {
      if (e.kind === 'arrive') {
        if (login.consume('k').allowed) pending.push(e.fails);
      } else if (pending.length > 0) settle(e.which % pending.length);
    }
    while (pending.length > 0) settle(0);
    const banned = !login.peek('k').allowed;
    if (banned && failures < 5) throw new Error(`banned with ${failures} counted failures of 5`);
  });
}

describe('no ban without counted failures (property)', () => {
  for (const [name, make] of LOGINS) {
    it(`${name}: once every outcome is in, a key is banned only when its counted failures fill the limit`, () => {
      fc.assert(noBanWithoutCountedFailures(make), { numRuns: 300 });
    });

    it(`${name}: the property catches bans that outlive the refunds (mutant)`, () => {
      expect(
        fc.check(
          noBanWithoutCountedFailures(make, () => new BanOutlivesRefundStore()),
          { numRuns: 300 },
        ).failed,
      ).toBe(true);
    });
  }
});
