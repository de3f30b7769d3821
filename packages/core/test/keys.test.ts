/**
 * Keys are opaque strings: "__proto__", "constructor", "toString", "hasOwnProperty", "" and the other
 * names Object.prototype carries are ordinary, independent keys. Each admits exactly `limit`, requests
 * to one never count against another, and Object.prototype is left exactly as it was.
 */
import { describe, expect, it } from 'vitest';
import { CompositeLimiter, FixedWindowLimiter, ManualClock, type RateLimiter, SlidingWindowLimiter, type Store, TokenBucketLimiter } from '../src/index.js';
import { PlainObjectStore } from './mutants/plain-object-store.js';

const KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '', 'valueOf', '__defineGetter__', 'prototype', 'length', '0'];
const LIMIT = 3;
const T0 = 1_700_000_000_000;

type Build = (clock: ManualClock, store?: Store<'sync'>) => RateLimiter<'sync'>;

const limiters: [string, Build][] = [
  ['token bucket', (clock, store) => new TokenBucketLimiter({ capacity: LIMIT, refillPerSecond: 1, clock, ...(store && { store }) })],
  ['sliding window', (clock, store) => new SlidingWindowLimiter({ limit: LIMIT, windowMs: 1000, clock, ...(store && { store }) })],
  ['fixed window', (clock, store) => new FixedWindowLimiter({ limit: LIMIT, windowMs: 1000, clock, ...(store && { store }) })],
  [
    'composite',
    (clock, store) =>
      new CompositeLimiter([
        new TokenBucketLimiter({ capacity: LIMIT, refillPerSecond: 1, clock, ...(store && { store }) }),
        new FixedWindowLimiter({ limit: 10, windowMs: 60_000, clock, ...(store && { store }) }),
      ]),
  ],
];

function prototypeSnapshot(): string {
  const names = Reflect.ownKeys(Object.prototype).map(String).sort();
  return JSON.stringify(names.map((n) => [n, typeof Object.getOwnPropertyDescriptor(Object.prototype, n)?.value]));
}

/** keysAreIndependent sends LIMIT + 1 requests to every key, round-robin, at one instant. */
function keysAreIndependent(build: Build, store?: Store<'sync'>, keys = KEYS): void {
  const before = prototypeSnapshot();
  const clock = new ManualClock(T0);
  const limiter = build(clock, store);
  const admitted = new Map(keys.map((k) => [k, 0]));
  for (let round = 0; round <= LIMIT; round++) {
    for (const key of keys) if (limiter.consume(key).allowed) admitted.set(key, (admitted.get(key) ?? 0) + 1);
  }
  expect(Object.fromEntries(admitted)).toEqual(Object.fromEntries(keys.map((k) => [k, LIMIT])));
  const [first, second] = keys as [string, string];
  limiter.reset(first);
  expect(limiter.peek(first)).toMatchObject({ allowed: true, remaining: LIMIT - 1 });
  expect(limiter.peek(second)).toMatchObject({ allowed: false, remaining: 0 });
  expect(prototypeSnapshot()).toBe(before);
  expect(Object.getPrototypeOf({})).toBe(Object.prototype);
}

describe('prototype-named keys', () => {
  for (const [name, build] of limiters) {
    it(`are ordinary, independent keys for the ${name}`, () => keysAreIndependent(build));
  }

  it('catch a store keyed by table[key] on a plain object (mutant)', () => {
    for (const [, build] of limiters.slice(0, 3)) expect(() => keysAreIndependent(build, new PlainObjectStore())).toThrow();
    // Without "__proto__" the windows happen to read Object.prototype's members as no state; the
    // bucket's arithmetic turns them into NaN and admits nothing.
    const [, bucket] = limiters[0] as [string, Build];
    expect(() => keysAreIndependent(bucket, new PlainObjectStore(), ['constructor', 'toString', 'hasOwnProperty'])).toThrow(/to deeply equal/);
  });
});
