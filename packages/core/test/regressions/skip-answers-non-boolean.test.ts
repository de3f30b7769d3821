/**
 * Regression: decide skipped a request only when `skip(req)` answered exactly `true`, and counted it
 * for any other answer, so a hook answering a truthy non-boolean (`1`, `'yes'`, an object, a header's
 * value, a promise of one) was silently counted: the user meant "skip" and got "count", with no sign of
 * it. A hook must answer a boolean (or a promise of one), or undefined / null for "count" (a hook written
 * as `if (x) return true`); anything else is the caller's bug, reported
 * like `key(req) must return a string`: a TypeError naming the hook and the value, thrown by decide on
 * the synchronous path and rejecting its promise on the async one, with nothing counted.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock, TokenBucketLimiter } from '../../src/index.js';
import { prepareRateLimit } from '../../src/adapter.js';
import { counting } from '../http/support.js';
import { expectReject, expectThrow } from '../support/expect-error.js';

type Req = { readonly id: string };
const req: Req = { id: 'a' };
const later = <T>(value: T) => new Promise<T>((resolve) => setImmediate(() => resolve(value)));
const bucket = () => counting(new TokenBucketLimiter({ capacity: 5, refillPerSecond: 1, clock: new ManualClock(1_700_000_000_000) }));

// [how the message shows it, the answer]
const NON_BOOLEANS: readonly [string, unknown][] = [
  ['1', 1],
  ['"yes"', 'yes'],
  ['"false"', 'false'],
  ['an object', {}],
  ['an array', []],
  ['0', 0],
  ['""', ''],
  ['NaN', Number.NaN],
];

describe('a skip hook that answers something other than a boolean', () => {
  it.each(NON_BOOLEANS)('answering %s synchronously throws a TypeError naming skip and the value, counting nothing', (shown, answer) => {
    const { limiter, calls } = bucket();
    const plan = prepareRateLimit<Req>('rateLimit', { limiter, skip: () => answer as boolean });
    expectThrow(() => plan.decide(req, '1.2.3.4'), TypeError, `rateLimit: skip(req) must return a boolean, got ${shown}`);
    expect(calls).toEqual([]);
  });

  it.each(NON_BOOLEANS)('resolving to %s rejects decide with the same TypeError, counting nothing', async (shown, answer) => {
    const { limiter, calls } = bucket();
    const plan = prepareRateLimit<Req>('rateLimit', { limiter, skip: () => later(answer as boolean) });
    await expectReject(() => plan.decide(req, '1.2.3.4'), TypeError, `rateLimit: skip(req) must return a boolean, got ${shown}`);
    expect(calls).toEqual([]);
  });

  it('true skips; false, undefined and null count (a hook written as `if (x) return true`), answered either way', async () => {
    const { limiter, calls } = counting(new TokenBucketLimiter({ capacity: 10, refillPerSecond: 1, clock: new ManualClock(1_700_000_000_000) }));
    const decide = (skip: () => boolean | Promise<boolean>) => prepareRateLimit<Req>('rateLimit', { limiter, skip }).decide(req, '1.2.3.4');
    expect(decide(() => true)).toBeUndefined();
    expect(await decide(() => later(true))).toBeUndefined();
    for (const counted of [false, undefined, null]) {
      expect(decide(() => counted as boolean)).toMatchObject({ allowed: true });
      expect(await decide(() => later(counted as boolean))).toMatchObject({ allowed: true });
    }
    expect(calls).toEqual(Array(6).fill(['1.2.3.4', 1]));
  });
});
