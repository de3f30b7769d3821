/**
 * Type tests of the adapters' limiter options (shorthand.ts, prepare.ts): one type per algorithm, so an
 * option the algorithm does not take fails to compile, as it fails at run time (shorthand.test.ts).
 * Checked by tsc (`pnpm typecheck`, this package's tsconfig includes test/) and by vitest's typecheck
 * (vitest.config.ts); every `@ts-expect-error` line must be an error, or the check fails.
 */
import { describe, expectTypeOf, it } from 'vitest';
import {
  type ConcurrencyShorthand,
  type FirstRequestWindowShorthand,
  type FixedWindowShorthand,
  type LimiterChoice,
  ManualClock,
  MemoryStore,
  type RateLimitOptions,
  type RateLimiter,
  TokenBucketLimiter,
  type TokenBucketShorthand,
} from '../../src/index.js';
import { chooseLimiter, prepareRateLimit } from '../../src/adapter.js';

type Req = { readonly ip: string };
const limiter: RateLimiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1 });
const choose = (o: LimiterChoice) => o;
const options = (o: RateLimitOptions<Req>) => o;

describe('LimiterChoice', () => {
  it('takes each algorithm with its own sizes, name, store and clock', () => {
    choose({});
    choose({ algorithm: 'token-bucket', capacity: 5, refillPerSecond: 0.5, name: 'api', store: new MemoryStore(), clock: new ManualClock(0) });
    choose({ capacity: 5 });
    choose({ algorithm: 'fixed-window', limit: 5, windowMs: 1000 });
    choose({ algorithm: 'sliding-window', limit: 5, windowMs: 1000 });
    choose({ algorithm: 'sliding-log', limit: 5 });
    choose({ algorithm: 'gcra', emissionIntervalMs: 100, burst: 5 });
    choose({ algorithm: 'concurrency', limit: 5, retryAfterMs: 200 });
    choose({ limiter });
  });

  it("reads { windowMs, limit } without algorithm as the first-request window, as express-rate-limit's users write it", () => {
    choose({ windowMs: 900_000, limit: 100 });
    choose({ limit: 100 });
    expectTypeOf({ windowMs: 900_000, limit: 100 } as const).toExtend<FirstRequestWindowShorthand>();
    expectTypeOf({ windowMs: 900_000, limit: 100 } as const).not.toExtend<FixedWindowShorthand>();
    expectTypeOf({ algorithm: 'fixed-window', windowMs: 900_000, limit: 100 } as const).toExtend<FixedWindowShorthand>();
    expectTypeOf({ windowMs: 900_000, limit: 100 } as const).not.toExtend<TokenBucketShorthand>();
    // @ts-expect-error a window's sizes beside the bucket's: run time picks the token bucket and refuses limit
    choose({ limit: 100, capacity: 5 });
    // @ts-expect-error max is refused at run time ("ratekeeper calls it limit"), so by the type too
    choose({ windowMs: 900_000, max: 100 });
  });

  it('refuses a size the algorithm does not take, for every algorithm', () => {
    // @ts-expect-error limit is no 'token-bucket' option
    choose({ algorithm: 'token-bucket', limit: 5 });
    // @ts-expect-error windowMs is no 'token-bucket' option
    choose({ algorithm: 'token-bucket', capacity: 5, windowMs: 1000 });
    // @ts-expect-error burst is no 'token-bucket' option
    choose({ algorithm: 'token-bucket', burst: 5 });
    // @ts-expect-error capacity is no 'fixed-window' option
    choose({ algorithm: 'fixed-window', capacity: 5 });
    // @ts-expect-error retryAfterMs is no 'fixed-window' option
    choose({ algorithm: 'fixed-window', retryAfterMs: 1000 });
    // @ts-expect-error refillPerSecond is no 'sliding-window' option
    choose({ algorithm: 'sliding-window', refillPerSecond: 1 });
    // @ts-expect-error emissionIntervalMs is no 'sliding-log' option
    choose({ algorithm: 'sliding-log', emissionIntervalMs: 10 });
    // @ts-expect-error capacity is no 'gcra' option (its burst is)
    choose({ algorithm: 'gcra', capacity: 5 });
    // @ts-expect-error limit is no 'gcra' option
    choose({ algorithm: 'gcra', limit: 5 });
    // @ts-expect-error windowMs is no 'concurrency' option
    choose({ algorithm: 'concurrency', windowMs: 1000 });
    // @ts-expect-error capacity is no 'concurrency' option
    choose({ algorithm: 'concurrency', capacity: 5 });
    // @ts-expect-error an algorithm the shorthand does not have
    choose({ algorithm: 'leaky-bucket' });
  });

  it('refuses shorthand options beside a ready limiter', () => {
    // @ts-expect-error a limiter has its own sizes
    choose({ limiter, capacity: 5 });
    // @ts-expect-error a limiter has its own algorithm
    choose({ limiter, algorithm: 'token-bucket' });
    // @ts-expect-error a limiter has its own store
    choose({ limiter, store: new MemoryStore() });
    // @ts-expect-error a limiter has its own name
    choose({ limiter, name: 'api' });
  });

  it('refuses an option no algorithm takes, also when it is not a fresh object literal', () => {
    // @ts-expect-error a typo
    choose({ algorithm: 'fixed-window', limt: 5 });
    const stray = { algorithm: 'concurrency', limit: 5, windowMs: 1000 } as const;
    // @ts-expect-error a variable is held to the same rule: the refused sizes are typed `never`, not only excess
    choose(stray);
  });

  it('narrows on algorithm', () => {
    const o = {} as LimiterChoice;
    if (o.algorithm === 'concurrency') expectTypeOf(o).toEqualTypeOf<ConcurrencyShorthand>();
    expectTypeOf(chooseLimiter).parameter(1).toEqualTypeOf<LimiterChoice>();
  });
});

describe('RateLimitOptions', () => {
  it('takes the limiter choice or plans with the adapter options', () => {
    options({ algorithm: 'sliding-window', limit: 10, key: (req) => req.ip, headers: 'both', shadow: true });
    options({ limiter, cost: () => 2 });
    options({ plans: { free: limiter }, plan: () => 'free', missingIp: 'skip' });
    prepareRateLimit<Req>('rateLimit', { algorithm: 'gcra', burst: 3 });
  });

  it('refuses plans beside a limiter or shorthand, plans without plan, and unknown options', () => {
    // @ts-expect-error plans with a limiter
    options({ plans: { free: limiter }, plan: () => 'free', limiter });
    // @ts-expect-error plans with shorthand sizes
    options({ plans: { free: limiter }, plan: () => 'free', capacity: 5 });
    // @ts-expect-error plans without plan
    options({ plans: { free: limiter } });
    // @ts-expect-error a typo of a behaviour option
    options({ limit: 5, shadw: true });
    // @ts-expect-error limit is no 'token-bucket' option, with the adapter options too
    prepareRateLimit<Req>('rateLimit', { algorithm: 'token-bucket', limit: 5, shadow: true });
  });
});
