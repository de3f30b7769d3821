/**
 * Unknown option names: every limiter constructor refuses an option it does not take, with the
 * adapters' message `Class: unknown option "name"` (a TypeError), before any value is checked, so a
 * typo (`stor` for `store`) can never run quietly on a default. The CompositeLimiter takes no options
 * at all and refuses a second argument. The adapters' plan refuses through the same helper. The
 * algorithm shorthand passes every option a limiter takes, and only those.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CompositeLimiter,
  FirstRequestWindowLimiter,
  FixedWindowLimiter,
  GcraLimiter,
  type Limiter,
  ManualClock,
  MemoryStore,
  type Policy,
  SlidingLogLimiter,
  SlidingWindowLimiter,
  TokenBucketLimiter,
} from '../src/index.js';
import { chooseLimiter, prepareRateLimit } from '../src/adapter.js';
import { SHORTHAND } from '../src/http/options/shorthand.js';
import { TOKEN_BUCKET_OPTIONS, WINDOW_OPTIONS } from '../src/limiter/bucket-and-window.js';
import { expectThrow } from './support/expect-error.js';

type Build = (options: Record<string, unknown>) => Limiter<Policy, 'sync'>;
interface Subject {
  readonly owner: string;
  readonly algorithm: 'token-bucket' | 'sliding-window' | 'fixed-window' | 'first-request-window' | 'sliding-log';
  readonly build: Build;
  readonly known: ReadonlySet<string>;
  /** A valid value for every option the limiter takes. */
  readonly valid: Record<string, unknown>;
}

const common = () => ({ name: 'api', clock: new ManualClock(), store: new MemoryStore() });
const subjects: Subject[] = [
  {
    owner: 'TokenBucketLimiter',
    algorithm: 'token-bucket',
    build: (o) => new TokenBucketLimiter(o as never),
    known: TOKEN_BUCKET_OPTIONS,
    valid: { capacity: 10, refillPerSecond: 2, ...common() },
  },
  {
    owner: 'SlidingWindowLimiter',
    algorithm: 'sliding-window',
    build: (o) => new SlidingWindowLimiter(o as never),
    known: WINDOW_OPTIONS,
    valid: { limit: 10, windowMs: 1000, ...common() },
  },
  {
    owner: 'FixedWindowLimiter',
    algorithm: 'fixed-window',
    build: (o) => new FixedWindowLimiter(o as never),
    known: WINDOW_OPTIONS,
    valid: { limit: 10, windowMs: 1000, ...common() },
  },
  {
    owner: 'FirstRequestWindowLimiter',
    algorithm: 'first-request-window',
    build: (o) => new FirstRequestWindowLimiter(o as never),
    known: WINDOW_OPTIONS,
    valid: { limit: 10, windowMs: 1000, ...common() },
  },
  {
    owner: 'SlidingLogLimiter',
    algorithm: 'sliding-log',
    build: (o) => new SlidingLogLimiter(o as never),
    known: WINDOW_OPTIONS,
    valid: { limit: 10, windowMs: 1000, ...common() },
  },
];
const required = (s: Subject) => (s.algorithm === 'token-bucket' ? ['capacity', 'refillPerSecond'] : ['limit', 'windowMs']);
// A fresh store per limiter: on one store, limiters with the same derived name share a table (store-names.ts).
const optionValue = (o: Record<string, unknown>, k: string) => (k === 'store' ? new MemoryStore() : o[k]);
const pick = (o: Record<string, unknown>, keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, optionValue(o, k)]));

describe('a misspelt option', () => {
  // Every constructor × the typos a user makes: a near-miss name, another algorithm's option, a wrong case.
  const table: [string, string, () => unknown][] = [
    ['TokenBucketLimiter', 'stor', () => new TokenBucketLimiter({ capacity: 10, refillPerSecond: 2, stor: new MemoryStore() } as never)],
    ['TokenBucketLimiter', 'limit', () => new TokenBucketLimiter({ capacity: 10, refillPerSecond: 2, limit: 5 } as never)],
    ['TokenBucketLimiter', 'Clock', () => new TokenBucketLimiter({ capacity: 10, refillPerSecond: 2, Clock: new ManualClock() } as never)],
    ['TokenBucketLimiter', 'refillPerSec', () => new TokenBucketLimiter({ capacity: 10, refillPerSec: 2 } as never)],
    ['SlidingWindowLimiter', 'windowms', () => new SlidingWindowLimiter({ limit: 10, windowMs: 1000, windowms: 60_000 } as never)],
    ['SlidingWindowLimiter', 'capacity', () => new SlidingWindowLimiter({ limit: 10, windowMs: 1000, capacity: 5 } as never)],
    ['SlidingWindowLimiter', 'stores', () => new SlidingWindowLimiter({ limit: 10, windowMs: 1000, stores: new MemoryStore() } as never)],
    ['FixedWindowLimiter', 'names', () => new FixedWindowLimiter({ limit: 10, windowMs: 1000, names: 'api' } as never)],
    ['FixedWindowLimiter', 'limits', () => new FixedWindowLimiter({ limits: 10, windowMs: 1000 } as never)],
    ['FixedWindowLimiter', 'max', () => new FixedWindowLimiter({ limit: 10, windowMs: 1000, max: 10 } as never)],
    ['SlidingLogLimiter', 'window', () => new SlidingLogLimiter({ limit: 10, windowMs: 1000, window: 1000 } as never)],
    ['GcraLimiter', 'capacity', () => new GcraLimiter({ emissionIntervalMs: 100, burst: 10, capacity: 10 } as never)],
    ['GcraLimiter', 'tolerance', () => new GcraLimiter({ emissionIntervalMs: 100, burst: 10, tolerance: 900 } as never)],
  ];

  it.each(table)('%s refuses "%s" by name, as a TypeError', (owner, option, build) => {
    expectThrow(build, TypeError, `${owner}: unknown option "${option}"`);
  });

  it('is refused even when its value is undefined, and before any value is checked', () => {
    expectThrow(() => new TokenBucketLimiter({ capacity: 10, refillPerSecond: 2, stor: undefined } as never), TypeError, 'TokenBucketLimiter: unknown option "stor"');
    // "capacty" is reported rather than "capacity must be a positive integer, got undefined": the typo is the cause.
    expectThrow(() => new TokenBucketLimiter({ capacty: 10, refillPerSecond: 2 } as never), TypeError, 'TokenBucketLimiter: unknown option "capacty"');
    expectThrow(() => new FixedWindowLimiter({ limit: 0, windowMs: 1000, window: 1 } as never), TypeError, 'FixedWindowLimiter: unknown option "window"');
  });

  it('shows a long or hostile option name shortened and escaped, as the adapters do', () => {
    expectThrow(
      () => new SlidingWindowLimiter({ limit: 1, windowMs: 1, ['x\r\n'.repeat(30)]: 1 } as never),
      TypeError,
      `SlidingWindowLimiter: unknown option ${JSON.stringify(`${'x\r\n'.repeat(30).slice(0, 40)}…`)}`,
    );
  });

  it('CompositeLimiter takes no options: a second argument is refused, an options object in place of the array too', () => {
    const clock = new ManualClock();
    const members = () => [new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock }), new FixedWindowLimiter({ limit: 5, windowMs: 1000, clock })];
    expectThrow(
      () => new (CompositeLimiter as unknown as new (...a: unknown[]) => unknown)(members(), { name: 'both' }),
      TypeError,
      'CompositeLimiter: takes only the array of limiters (each brings its own options), got a second argument: an object',
    );
    expectThrow(() => new CompositeLimiter({ limiters: members() } as never), TypeError, 'CompositeLimiter: limiters must be a non-empty array of limiters, got an object');
    expect(() => new (CompositeLimiter as unknown as new (...a: unknown[]) => unknown)(members(), undefined)).not.toThrow();
  });

  it("the adapters' plan refuses through the same helper, with the same shape, and takes its adapter-only names", () => {
    expectThrow(() => prepareRateLimit('rateLimit', { stor: new MemoryStore() } as never), TypeError, 'rateLimit: unknown option "stor": did you mean "store"?');
    expectThrow(() => prepareRateLimit('rateLimit', { handler: () => undefined } as never), TypeError, 'rateLimit: unknown option "handler"');
    expect(() => prepareRateLimit('rateLimit', { handler: () => undefined } as never, ['handler'])).not.toThrow();
  });
});

describe('the known option names', () => {
  const name = fc.string({ minLength: 1, maxLength: 12 });

  for (const s of subjects) {
    it(`${s.owner}: any name outside its options throws naming it; any set of its own options never does`, () => {
      fc.assert(
        fc.property(name, fc.anything(), (key, value) => {
          fc.pre(!s.known.has(key));
          expectThrow(() => s.build({ ...pick(s.valid, required(s)), [key]: value }), TypeError, `${s.owner}: unknown option ${JSON.stringify(key)}`);
        }),
        { numRuns: 300 },
      );
      const optional = [...s.known].filter((k) => !required(s).includes(k));
      fc.assert(
        fc.property(fc.subarray(optional), (chosen) => {
          expect(() => s.build(pick(s.valid, [...required(s), ...chosen]))).not.toThrow();
        }),
      );
    });

    it(`${s.owner}: the adapters' shorthand passes every option it takes, and only those`, () => {
      const passed = SHORTHAND.filter((k) => k !== 'algorithm').filter((k) => {
        try {
          chooseLimiter('rateLimit', { algorithm: s.algorithm, [k]: optionValue(s.valid, k) ?? 1 });
          return true;
        } catch {
          return false;
        }
      });
      expect(new Set(passed)).toEqual(s.known);
      for (const k of passed) {
        const value = optionValue(s.valid, k);
        const limiter = chooseLimiter('rateLimit', { algorithm: s.algorithm, [k]: value }) as Limiter<Policy, 'sync'>;
        const seen = k === 'clock' || k === 'store' ? limiter[k] : (limiter.policy as unknown as Record<string, unknown>)[k];
        expect(seen, k).toBe(value);
      }
      for (const k of s.known) expect(() => prepareRateLimit('rateLimit', { algorithm: s.algorithm, [k]: optionValue(s.valid, k) } as never), k).not.toThrow();
    });
  }
});
