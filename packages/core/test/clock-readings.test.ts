/**
 * A clock reading that is not a finite number (NaN, undefined from a `now() { Date.now() }` that forgot
 * its return, ±Infinity, a string, null) is refused on every call that reads the clock: consume, peek
 * and allow throw on the memory store and return a rejected promise on a remote one (never a
 * synchronous throw), with an error naming the limiter and the clock, and the store is never asked.
 * reset reads no clock and still works. The same check catches the limiters with the check taken out.
 * Through the adapters' plan the refusal is an error (a 500), never a Decision.
 */
import { describe, expect, it } from 'vitest';
import {
  type Clock,
  CompositeLimiter,
  FixedWindowLimiter,
  type Limiter,
  type Mode,
  type Policy,
  type RateLimiter,
  RateLimiterError,
  SlidingWindowLimiter,
  type Store,
  TokenBucketLimiter,
} from '../src/index.js';
import { prepareRateLimit } from '../src/adapter.js';
import { uncheckedClock, uncheckedComposite } from './mutants/unchecked-clock.js';
import { AsyncMemoryStore } from './support/async-store.js';
import { expectReject, expectThrow } from './support/expect-error.js';

const T0 = 1_700_000_000_000;
type ErrorClass = typeof RangeError | typeof TypeError;
const BAD: [unknown, ErrorClass, string][] = [
  [Number.NaN, RangeError, 'NaN'],
  [undefined, TypeError, 'undefined'],
  [Infinity, RangeError, 'Infinity'],
  [-Infinity, RangeError, '-Infinity'],
  [String(T0), TypeError, `"${T0}"`],
  [null, TypeError, 'null'],
];
const METHODS = ['consume', 'peek', 'allow'] as const;

/** SettableClock answers whatever it is told to, a finite number or not. */
class SettableClock implements Clock {
  reading: unknown = T0;
  now(): number {
    return this.reading as number;
  }
}

type Members<M extends Mode> = Limiter<Policy, M>[];
const members = <M extends Mode>(clock: Clock, store: Store<M> | undefined): Members<M> => {
  const s = store === undefined ? {} : { store };
  return [
    new TokenBucketLimiter<M>({ capacity: 3, refillPerSecond: 1, clock, ...s }),
    new SlidingWindowLimiter<M>({ limit: 3, windowMs: 1000, clock, ...s }),
    new FixedWindowLimiter<M>({ limit: 3, windowMs: 1000, clock, ...s }),
  ];
};
const subjects: [string, <M extends Mode>(clock: Clock, store?: Store<M>) => RateLimiter<M>][] = [
  ['TokenBucketLimiter', (clock, store) => members(clock, store)[0] as unknown as RateLimiter<never>],
  ['SlidingWindowLimiter', (clock, store) => members(clock, store)[1] as unknown as RateLimiter<never>],
  ['FixedWindowLimiter', (clock, store) => members(clock, store)[2] as unknown as RateLimiter<never>],
  ['CompositeLimiter', (clock, store) => new CompositeLimiter(members(clock, store).slice(0, 2)) as unknown as RateLimiter<never>],
];

/** message is the refusal's exact text. */
const message = (owner: string, shown: string) => `${owner}: clock.now() must return a finite number of epoch milliseconds, got ${shown}`;

/**
 * refusals drives a synchronous limiter through every bad reading in consume, peek and allow and lists
 * what went wrong: a call that answered instead of throwing, or threw the wrong error. Empty for a
 * limiter that refuses them all; then, with the clock back, the key shows no trace of them.
 */
function refusals(owner: string, limiter: RateLimiter<'sync'>, clock: SettableClock): string[] {
  const problems: string[] = [];
  const before = limiter.peek('k');
  for (const [reading, error, shown] of BAD) {
    for (const method of METHODS) {
      clock.reading = reading;
      try {
        expectThrow(() => limiter[method]('k'), error, message(owner, shown));
      } catch (e) {
        problems.push(`${method} at ${shown}: ${(e as Error).message.split('\n')[0]}`);
      }
    }
  }
  clock.reading = T0;
  const after = limiter.peek('k');
  if (JSON.stringify({ ...after, policy: 0, parts: 0 }) !== JSON.stringify({ ...before, policy: 0, parts: 0 })) problems.push('state changed');
  return problems;
}

describe('a non-finite clock reading on the memory store', () => {
  for (const [owner, build] of subjects) {
    it(`${owner} throws in consume, peek and allow, naming the clock, and records nothing`, () => {
      const clock = new SettableClock();
      const limiter = build<'sync'>(clock);
      limiter.consume('k');
      expect(refusals(owner, limiter, clock)).toEqual([]);
      expect(limiter.consume('k')).toMatchObject({ allowed: true, remaining: 1 });
    });

    it(`${owner}: reset reads no clock and resets the key whatever the clock answers`, () => {
      const clock = new SettableClock();
      const limiter = build<'sync'>(clock);
      limiter.consume('k', 3);
      clock.reading = undefined;
      expect(limiter.reset('k')).toBeUndefined();
      clock.reading = T0;
      expect(limiter.peek('k')).toMatchObject({ allowed: true, remaining: 2 });
    });
  }

  it('the same check catches every limiter with the check taken out, on every bad reading and method', () => {
    const clock = new SettableClock();
    const [bucket, sliding, fixed] = members<'sync'>(clock, undefined);
    const mutants: [string, RateLimiter<'sync'>][] = [
      ['TokenBucketLimiter', uncheckedClock(bucket as Limiter<Policy, 'sync'>)],
      ['SlidingWindowLimiter', uncheckedClock(sliding as Limiter<Policy, 'sync'>)],
      ['FixedWindowLimiter', uncheckedClock(fixed as Limiter<Policy, 'sync'>)],
      ['CompositeLimiter', uncheckedComposite(members<'sync'>(clock, undefined).slice(0, 2))],
    ];
    for (const [owner, mutant] of mutants) {
      const problems = refusals(owner, mutant, clock);
      // Every bad reading in every method answered instead of throwing, and the answers moved the key's state.
      expect(problems, owner).toHaveLength(BAD.length * METHODS.length + 1);
      expect(problems.at(-1), owner).toBe('state changed');
    }
  });

  it('without the check, a fixed window on a NaN clock admits everything (the reported symptom)', () => {
    const clock = new SettableClock();
    const mutant = uncheckedClock(members<'sync'>(clock, undefined)[2] as Limiter<Policy, 'sync'>);
    clock.reading = Number.NaN;
    expect(Array.from({ length: 10 }, () => mutant.allow('k')).filter(Boolean)).toHaveLength(10); // limit 3
  });

  it('a clock that forgot its return is refused at the first call', () => {
    const forgetful: Clock = {
      now() {
        Date.now();
      },
    } as unknown as Clock;
    const limiter = new FixedWindowLimiter({ limit: 1, windowMs: 1000, clock: forgetful });
    expectThrow(() => limiter.allow('k'), TypeError, message('FixedWindowLimiter', 'undefined'));
  });
});

describe('a non-finite clock reading on a remote store', () => {
  for (const [owner, build] of subjects) {
    it(`${owner} returns a rejected promise from consume, peek and allow (never a synchronous throw), and never asks the store`, async () => {
      const clock = new SettableClock();
      const store = new AsyncMemoryStore();
      const limiter = build<'async'>(clock, store);
      await limiter.consume('k');
      const trips = store.roundTrips;
      for (const [reading, error, shown] of BAD) {
        for (const method of METHODS) {
          clock.reading = reading;
          await expectReject(() => limiter[method]('k'), error, message(owner, shown));
        }
      }
      expect(store.roundTrips).toBe(trips);
      clock.reading = undefined;
      await expect(limiter.reset('k')).resolves.toBeUndefined();
      clock.reading = T0;
      expect(await limiter.peek('k')).toMatchObject({ allowed: true, remaining: 2 });
    });
  }

  it('a bad key or cost is a rejected promise too, never a synchronous throw', async () => {
    const limiter = new TokenBucketLimiter({ capacity: 3, refillPerSecond: 1, store: new AsyncMemoryStore() });
    await expectReject(() => limiter.consume(5 as never), TypeError, 'TokenBucketLimiter: key must be a string, got 5');
    await expectReject(() => limiter.allow('k', 0), RangeError, 'TokenBucketLimiter: cost must be a positive integer, got 0');
    await expectReject(() => limiter.reset(null as never), TypeError, 'TokenBucketLimiter: key must be a string, got null');
    const clock = new SettableClock();
    const both = new CompositeLimiter(members<'async'>(clock, new AsyncMemoryStore()).slice(0, 2));
    await expectReject(() => both.peek('k', 1.5), RangeError, 'CompositeLimiter: cost must be a positive integer, got 1.5');
    await expectReject(() => both.reset(undefined as never), TypeError, 'CompositeLimiter: key must be a string, got undefined');
  });
});

describe("a non-finite clock reading behind the adapters' plan", () => {
  const req = {};
  it("is an error on the framework's error path, never a Decision: thrown on the memory store, as a RateLimiterError carrying it as the cause", () => {
    const clock = new SettableClock();
    const plan = prepareRateLimit('rateLimit', { limiter: new TokenBucketLimiter({ capacity: 3, refillPerSecond: 1, clock }) });
    clock.reading = Number.NaN;
    let error: unknown;
    try {
      void plan.decide(req, '1.2.3.4');
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(RateLimiterError);
    expect(((error as RateLimiterError).cause as Error).message).toBe(message('TokenBucketLimiter', 'NaN'));
    expect((error as RateLimiterError).cause).toBeInstanceOf(RangeError);
  });

  it('and a RateLimiterError (500, no text of its own) carrying it as the cause on a remote store', async () => {
    const clock = new SettableClock();
    const plan = prepareRateLimit('rateLimit', { limiter: new TokenBucketLimiter({ capacity: 3, refillPerSecond: 1, clock, store: new AsyncMemoryStore() }) });
    clock.reading = undefined;
    const error = await (plan.decide(req, '1.2.3.4') as Promise<unknown>).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimiterError);
    expect([(error as RateLimiterError).message, (error as RateLimiterError).status]).toEqual(['rateLimit: the limiter failed to decide', 500]);
    expect(((error as RateLimiterError).cause as Error).message).toBe(message('TokenBucketLimiter', 'undefined'));
  });
});
