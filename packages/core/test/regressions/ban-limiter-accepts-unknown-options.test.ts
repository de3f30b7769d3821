/**
 * Regression: BanLimiter read `limiter` and `banMs` and ignored every other name, so a typo ran
 * quietly on a default: `{ limiter, banMS: 60_000 }` failed on banMs (a message about the wrong
 * option), and `{ limiter, banMs, store }` or `{ limiter, banMs, limit: 5 }` (options that belong to the
 * wrapped limiter) were accepted and did nothing. Every other constructor refuses an unknown name as
 * `Class: unknown option "name"` (a TypeError), before any value is checked (unknown-options.test.ts);
 * BanLimiter now does too.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BanLimiter, FixedWindowLimiter, ManualClock, MemoryStore } from '../../src/index.js';
import { expectThrow } from '../support/expect-error.js';

const inner = () => new FixedWindowLimiter({ limit: 5, windowMs: 900_000, clock: new ManualClock(0) });
const KNOWN = new Set(['limiter', 'banMs']);

describe('BanLimiter option names', () => {
  it.each([
    ['banMS', { limiter: inner(), banMS: 3_600_000 }],
    ['ban', { limiter: inner(), banMs: 3_600_000, ban: true }],
    ['durationMs', { limiter: inner(), banMs: 3_600_000, durationMs: 60_000 }],
    ['store', { limiter: inner(), banMs: 3_600_000, store: new MemoryStore() }],
    ['limit', { limiter: inner(), banMs: 3_600_000, limit: 5 }],
    ['limiters', { limiters: [inner()], banMs: 3_600_000 }],
  ])('refuses "%s" by name, as a TypeError, before any value is checked', (name, options) => {
    expectThrow(() => new BanLimiter(options as never), TypeError, `BanLimiter: unknown option "${name}"`);
  });

  it('refuses a name whose value is undefined', () => {
    expectThrow(() => new BanLimiter({ limiter: inner(), banMs: 1, banMS: undefined } as never), TypeError, 'BanLimiter: unknown option "banMS"');
  });

  it('refuses any name outside its two options, and takes exactly those two', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 12 }), fc.anything(), (name, value) => {
        fc.pre(!KNOWN.has(name));
        expectThrow(() => new BanLimiter({ limiter: inner(), banMs: 1_000, [name]: value } as never), TypeError, `BanLimiter: unknown option ${JSON.stringify(name)}`);
      }),
      { numRuns: 300 },
    );
    const options = Object.freeze({ limiter: inner(), banMs: 1_000 });
    expect(new BanLimiter(options).banMs).toBe(1_000);
  });
});
