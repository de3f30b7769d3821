/**
 * Validation: every option of every constructor, given NaN, a negative, Infinity, a fraction where a
 * whole number is required, a string or null, throws at construction: a RangeError for a number out of
 * range, a TypeError for a wrong type, with the message `Class: option must be …, got <value>`. Options
 * objects are never mutated. At call time a bad key or cost throws too, and leaves no trace: never a
 * silent admit.
 */
import { describe, expect, it } from 'vitest';
import {
  CompositeLimiter,
  FirstRequestWindowLimiter,
  FixedWindowLimiter,
  GcraLimiter,
  ManualClock,
  MemoryStore,
  type RateLimiter,
  SlidingLogLimiter,
  SlidingWindowLimiter,
  TokenBucketLimiter,
} from '../src/index.js';

type Ctor = (options: Record<string, unknown>) => unknown;
interface Case {
  readonly option: string;
  readonly value: unknown;
  readonly error: typeof RangeError | typeof TypeError;
  readonly message: string;
}

/** expectThrow checks the error's class and its exact message. */
function expectThrow(f: () => unknown, error: typeof RangeError | typeof TypeError, message: string): void {
  let thrown: unknown;
  try {
    f();
  } catch (e) {
    thrown = e;
  }
  expect(thrown, message).toBeInstanceOf(Error);
  expect([(thrown as Error).constructor.name, (thrown as Error).message]).toEqual([error.name, message]);
}

/** Cases for an option that must be a positive integer. */
function positiveInteger(owner: string, option: string): Case[] {
  const want = `${owner}: ${option} must be a positive integer, got`;
  return [
    { option, value: Number.NaN, error: RangeError, message: `${want} NaN` },
    { option, value: -1, error: RangeError, message: `${want} -1` },
    { option, value: 0, error: RangeError, message: `${want} 0` },
    { option, value: Infinity, error: RangeError, message: `${want} Infinity` },
    { option, value: 1.5, error: RangeError, message: `${want} 1.5` },
    { option, value: 2 ** 53, error: RangeError, message: `${want} 9007199254740992` },
    { option, value: '10', error: TypeError, message: `${want} "10"` },
    { option, value: null, error: TypeError, message: `${want} null` },
    { option, value: undefined, error: TypeError, message: `${want} undefined` },
  ];
}

/** Cases shared by every limiter: name, clock, store. */
function common(owner: string): Case[] {
  const name = `${owner}: name must be 1 to 64 characters of A-Z a-z 0-9 _ . : -, got`;
  const clock = `${owner}: clock must be an object with a now() method, got`;
  const store = `${owner}: store must be a Store (mode 'sync' or 'async' and a bind() method), got`;
  return [
    { option: 'name', value: '', error: RangeError, message: `${name} ""` },
    { option: 'name', value: 'per second', error: RangeError, message: `${name} "per second"` },
    { option: 'name', value: 'x'.repeat(65), error: RangeError, message: `${name} "${'x'.repeat(40)}…"` },
    { option: 'name', value: 5, error: TypeError, message: `${name} 5` },
    { option: 'name', value: null, error: TypeError, message: `${name} null` },
    { option: 'clock', value: null, error: TypeError, message: `${clock} null` },
    { option: 'clock', value: { now: 5 }, error: TypeError, message: `${clock} an object` },
    { option: 'clock', value: Date.now, error: TypeError, message: `${clock} a function` },
    { option: 'store', value: null, error: TypeError, message: `${store} null` },
    { option: 'store', value: { mode: 'sync' }, error: TypeError, message: `${store} an object` },
    { option: 'store', value: 'memory', error: TypeError, message: `${store} "memory"` },
  ];
}

const refill = 'TokenBucketLimiter: refillPerSecond must be a number > 0 and at most 1000000, got';
const constructors: [string, Ctor, Record<string, unknown>, Case[]][] = [
  [
    'TokenBucketLimiter',
    (o) => new TokenBucketLimiter(o as never),
    { capacity: 10, refillPerSecond: 2 },
    [
      ...positiveInteger('TokenBucketLimiter', 'capacity'),
      { option: 'refillPerSecond', value: Number.NaN, error: RangeError, message: `${refill} NaN` },
      { option: 'refillPerSecond', value: -2, error: RangeError, message: `${refill} -2` },
      { option: 'refillPerSecond', value: 0, error: RangeError, message: `${refill} 0` },
      { option: 'refillPerSecond', value: Infinity, error: RangeError, message: `${refill} Infinity` },
      { option: 'refillPerSecond', value: 1e9, error: RangeError, message: `${refill} 1000000000` },
      { option: 'refillPerSecond', value: '2', error: TypeError, message: `${refill} "2"` },
      { option: 'refillPerSecond', value: null, error: TypeError, message: `${refill} null` },
      {
        option: 'refillPerSecond',
        value: 1e-12,
        error: RangeError,
        message: `TokenBucketLimiter: refillPerSecond must be at least ${10_000 / 2 ** 52} (a full refill within 2^52 ms), got 1e-12`,
      },
      ...common('TokenBucketLimiter'),
    ],
  ],
  [
    'SlidingWindowLimiter',
    (o) => new SlidingWindowLimiter(o as never),
    { limit: 10, windowMs: 1000 },
    [
      ...positiveInteger('SlidingWindowLimiter', 'limit'),
      ...positiveInteger('SlidingWindowLimiter', 'windowMs'),
      { option: 'windowMs', value: 2 ** 50, error: RangeError, message: `SlidingWindowLimiter: windowMs must be at most 900719925474099 for limit 10, got ${2 ** 50}` },
      ...common('SlidingWindowLimiter'),
    ],
  ],
  [
    'FixedWindowLimiter',
    (o) => new FixedWindowLimiter(o as never),
    { limit: 10, windowMs: 1000 },
    [...positiveInteger('FixedWindowLimiter', 'limit'), ...positiveInteger('FixedWindowLimiter', 'windowMs'), ...common('FixedWindowLimiter')],
  ],
  [
    'FirstRequestWindowLimiter',
    (o) => new FirstRequestWindowLimiter(o as never),
    { limit: 10, windowMs: 1000 },
    [...positiveInteger('FirstRequestWindowLimiter', 'limit'), ...positiveInteger('FirstRequestWindowLimiter', 'windowMs'), ...common('FirstRequestWindowLimiter')],
  ],
  [
    'SlidingLogLimiter',
    (o) => new SlidingLogLimiter(o as never),
    { limit: 10, windowMs: 1000 },
    [
      ...positiveInteger('SlidingLogLimiter', 'limit'),
      {
        option: 'limit',
        value: 10_001,
        error: RangeError,
        message: 'SlidingLogLimiter: limit must be a positive integer of at most 10000 (the log keeps one instant per unit), got 10001',
      },
      ...positiveInteger('SlidingLogLimiter', 'windowMs'),
      ...common('SlidingLogLimiter'),
    ],
  ],
  [
    'GcraLimiter',
    (o) => new GcraLimiter(o as never),
    { emissionIntervalMs: 500, burst: 10 },
    [
      ...positiveInteger('GcraLimiter', 'burst'),
      { option: 'emissionIntervalMs', value: Number.NaN, error: RangeError, message: 'GcraLimiter: emissionIntervalMs must be a finite number > 0, got NaN' },
      { option: 'emissionIntervalMs', value: 0, error: RangeError, message: 'GcraLimiter: emissionIntervalMs must be a finite number > 0, got 0' },
      { option: 'emissionIntervalMs', value: -5, error: RangeError, message: 'GcraLimiter: emissionIntervalMs must be a finite number > 0, got -5' },
      { option: 'emissionIntervalMs', value: Infinity, error: RangeError, message: 'GcraLimiter: emissionIntervalMs must be a finite number > 0, got Infinity' },
      { option: 'emissionIntervalMs', value: 1e-4, error: RangeError, message: 'GcraLimiter: emissionIntervalMs must be at least 0.001 (at most 1e6 per second), got 0.0001' },
      {
        option: 'emissionIntervalMs',
        value: 2 ** 50,
        error: RangeError,
        message: `GcraLimiter: emissionIntervalMs must be at most ${2 ** 52 / 10} for burst 10 (a full refill within 2^52 ms), got ${2 ** 50}`,
      },
      { option: 'emissionIntervalMs', value: '500', error: TypeError, message: 'GcraLimiter: emissionIntervalMs must be a finite number > 0, got "500"' },
      ...common('GcraLimiter'),
    ],
  ],
  ['MemoryStore', (o) => new MemoryStore(o), {}, positiveInteger('MemoryStore', 'maxKeys').filter((c) => c.value !== undefined)],
];

describe('constructor validation', () => {
  for (const [owner, build, valid, cases] of constructors) {
    it(`${owner} rejects each bad option with the right error class and a message naming class, option and value`, () => {
      expect(() => build(valid)).not.toThrow();
      for (const c of cases) expectThrow(() => build({ ...valid, [c.option]: c.value }), c.error, c.message);
    });

    it(`${owner} rejects an options value that is not an object`, () => {
      for (const [value, shown] of [
        [null, 'null'],
        [[], 'an array'],
        ['x', '"x"'],
        [7, '7'],
      ] as const) {
        expectThrow(() => build(value as never), TypeError, `${owner}: options must be an object, got ${shown}`);
      }
    });

    it(`${owner} leaves its options object exactly as it was`, () => {
      const options = Object.freeze({ ...valid, ...(owner === 'MemoryStore' ? { maxKeys: 5 } : { name: 'api', clock: new ManualClock(), store: new MemoryStore() }) });
      const before = { ...options };
      expect(() => build(options)).not.toThrow(); // frozen: any write would throw in strict mode
      expect(options).toEqual(before);
      expect(Object.keys(options)).toEqual(Object.keys(before));
    });
  }

  it('accepts the documented edges: fractional and extreme refill rates, a one-millisecond window, one key', () => {
    expect(() => new TokenBucketLimiter({ capacity: 1, refillPerSecond: 0.3 })).not.toThrow();
    expect(() => new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1e6 })).not.toThrow();
    expect(() => new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1e-10 })).not.toThrow();
    expect(() => new SlidingWindowLimiter({ limit: 1, windowMs: 1 })).not.toThrow();
    expect(() => new MemoryStore({ maxKeys: 1 })).not.toThrow();
  });
});

describe('quota bound', () => {
  it('takes a capacity or limit of up to 15 digits, the most a header Integer holds, and no more', () => {
    const max = 999_999_999_999_999;
    expect(new TokenBucketLimiter({ capacity: max, refillPerSecond: 1e6 }).policy.capacity).toBe(max);
    expect(new FixedWindowLimiter({ limit: max, windowMs: 1 }).policy.limit).toBe(max);
    const want = "must be a positive integer of at most 15 digits (a header's Integer), got 1000000000000000";
    expectThrow(() => new TokenBucketLimiter({ capacity: max + 1, refillPerSecond: 1e6 }), RangeError, `TokenBucketLimiter: capacity ${want}`);
    expectThrow(() => new SlidingWindowLimiter({ limit: max + 1, windowMs: 1 }), RangeError, `SlidingWindowLimiter: limit ${want}`);
    expectThrow(() => new FixedWindowLimiter({ limit: max + 1, windowMs: 1 }), RangeError, `FixedWindowLimiter: limit ${want}`);
  });
});

describe('ManualClock validation', () => {
  const start = 'ManualClock: startMs must be a safe integer of epoch milliseconds, got';
  const set = 'ManualClock: set(ms) must be a safe integer of epoch milliseconds, got';
  const advance = 'ManualClock: advance(ms) must be a whole number of milliseconds >= 0, got';
  const table: [() => unknown, typeof RangeError | typeof TypeError, string][] = [
    [() => new ManualClock(Number.NaN), RangeError, `${start} NaN`],
    [() => new ManualClock(Infinity), RangeError, `${start} Infinity`],
    [() => new ManualClock(1.5), RangeError, `${start} 1.5`],
    [() => new ManualClock('5' as never), TypeError, `${start} "5"`],
    [() => new ManualClock(null as never), TypeError, `${start} null`],
    [() => new ManualClock().set(Number.NaN), RangeError, `${set} NaN`],
    [() => new ManualClock().set(-Infinity), RangeError, `${set} -Infinity`],
    [() => new ManualClock().set(0.25), RangeError, `${set} 0.25`],
    [() => new ManualClock().set(null as never), TypeError, `${set} null`],
    [() => new ManualClock().advance(-1), RangeError, `${advance} -1`],
    [() => new ManualClock().advance(0.5), RangeError, `${advance} 0.5`],
    [() => new ManualClock().advance(Number.NaN), RangeError, `${advance} NaN`],
    [() => new ManualClock().advance('1' as never), TypeError, `${advance} "1"`],
    [() => new ManualClock(2 ** 53 - 1).advance(1), RangeError, 'ManualClock: the advanced instant must be a safe integer of epoch milliseconds, got 9007199254740992'],
  ];

  it('rejects every non-integer instant or step with the right error class and message', () => {
    for (const [f, error, message] of table) expectThrow(f, error, message);
  });

  it('moves only when told to, backwards included, and leaves its time unchanged after a rejected call', () => {
    const clock = new ManualClock(1000);
    expect([clock.now(), clock.advance(500), clock.set(200), clock.now()]).toEqual([1000, 1500, 200, 200]);
    expect(() => clock.advance(-1)).toThrow(RangeError);
    expect(clock.now()).toBe(200);
    expect(new ManualClock().now()).toBe(0);
  });
});

describe('call-time validation', () => {
  const T0 = 1_700_000_000_000;
  const limiters: [string, (clock: ManualClock) => RateLimiter<'sync'>][] = [
    ['TokenBucketLimiter', (clock) => new TokenBucketLimiter({ capacity: 3, refillPerSecond: 1, clock })],
    ['SlidingWindowLimiter', (clock) => new SlidingWindowLimiter({ limit: 3, windowMs: 1000, clock })],
    ['FixedWindowLimiter', (clock) => new FixedWindowLimiter({ limit: 3, windowMs: 1000, clock })],
    ['SlidingLogLimiter', (clock) => new SlidingLogLimiter({ limit: 3, windowMs: 1000, clock })],
    ['GcraLimiter', (clock) => new GcraLimiter({ emissionIntervalMs: 1000, burst: 3, clock })],
    [
      'CompositeLimiter',
      (clock) => new CompositeLimiter([new TokenBucketLimiter({ capacity: 3, refillPerSecond: 1, clock }), new FixedWindowLimiter({ limit: 9, windowMs: 60_000, clock })]),
    ],
  ];
  const costs: [unknown, typeof RangeError | typeof TypeError, string][] = [
    [0, RangeError, '0'],
    [-1, RangeError, '-1'],
    [1.5, RangeError, '1.5'],
    [Number.NaN, RangeError, 'NaN'],
    [Infinity, RangeError, 'Infinity'],
    [2 ** 53, RangeError, '9007199254740992'],
    ['1', TypeError, '"1"'],
    [null, TypeError, 'null'],
    [true, TypeError, 'true'],
  ];
  const keys: [unknown, string][] = [
    [5, '5'],
    [undefined, 'undefined'],
    [null, 'null'],
    [{}, 'an object'],
    [['a'], 'an array'],
  ];

  for (const [owner, build] of limiters) {
    it(`${owner} throws for a bad cost or key in consume, peek and allow, and records nothing`, () => {
      const limiter = build(new ManualClock(T0));
      const untouched = build(new ManualClock(T0));
      for (const method of ['consume', 'peek', 'allow'] as const) {
        for (const [cost, error, shown] of costs) {
          expectThrow(() => limiter[method]('k', cost as number), error, `${owner}: cost must be a positive integer, got ${shown}`);
        }
        for (const [key, shown] of keys) expectThrow(() => limiter[method](key as string), TypeError, `${owner}: key must be a string, got ${shown}`);
      }
      expectThrow(() => limiter.reset(5 as never), TypeError, `${owner}: key must be a string, got 5`);
      expect({ ...limiter.peek('k'), policy: undefined, parts: undefined }).toEqual({ ...untouched.peek('k'), policy: undefined, parts: undefined });
      expect(limiter.consume('k', undefined)).toMatchObject({ allowed: true, remaining: 2 });
    });
  }
});
