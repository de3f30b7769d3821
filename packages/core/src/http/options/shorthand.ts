/**
 * The limiter behind an adapter: either the ready `limiter` the caller passes (any core limiter, a
 * composite included, on any store) or one built from the `algorithm` shorthand with working
 * defaults, so that `rateLimit()` and `rateLimit({ algorithm: 'token-bucket' })` just work:
 *
 * - 'token-bucket' (the default): capacity 60, refillPerSecond 1 — bursts of 60, then 1 per second;
 *   but `limit` or `windowMs` without `algorithm` (and without capacity/refillPerSecond) picks
 *   'first-request-window', the window express-rate-limit and its kin count by: { windowMs: 900_000, limit: 100 };
 * - 'sliding-window': limit 60 per windowMs 60,000;
 * - 'first-request-window': limit 60 per windowMs 60,000, each key's window starting at its first request;
 * - 'fixed-window': limit 60 per windowMs 60,000, every key's windows aligned on multiples of windowMs;
 * - 'sliding-log': limit 60 per windowMs 60,000, exact over any rolling minute (61 numbers per key);
 * - 'gcra': burst 60, emissionIntervalMs 1000 — GCRA's own parameters for the very same token bucket
 *   (core's GcraLimiter, an honest alias: capacity = burst, one token every emission interval; GCRA's
 *   tolerance τ is (burst − 1) · emissionIntervalMs). Its defaults are the token bucket's.
 * - 'concurrency': limit 10 requests in flight per key, each released when its work ends, a
 *   denial suggesting retryAfterMs 1,000 (ConcurrencyLimiter).
 *
 * Giving both `limiter` and shorthand options is an error, as is a shorthand option that the chosen
 * algorithm does not take (a silent ignore would hide a typo'd limit), and so is a limiter on a shared
 * `store` whose derived name another live limiter there already has (two routes with the same
 * settings would share one budget: ../../limiter/store-names.ts); `name` tells them apart, or joins them on purpose.
 */
import type { Clock } from '../../clock.js';
import type { RateLimiter } from '../../limiter/limiter.js';
import { ConcurrencyLimiter } from '../../limiter/concurrency-limiter.js';
import { GcraLimiter } from '../../limiter/gcra.js';
import { FirstRequestWindowLimiter, FixedWindowLimiter, SlidingLogLimiter, SlidingWindowLimiter, TokenBucketLimiter } from '../../limiter/bucket-and-window.js';
import type { Store } from '../../store/contract.js';
import { describeValue } from '../../validate.js';
import { clashOf } from '../../limiter/store-names.js';
import { ALGORITHMS, type AlgorithmShorthand, SHORTHAND, SIZES, SIZE_OPTIONS, type SizeOption, sizesOf } from './options.js';

export { type AlgorithmShorthand, SHORTHAND } from './options.js';

/** Every limiter option of the shorthand, typed loosely: the names the per-algorithm types below refuse. */
interface AnyShorthand {
  readonly limiter: RateLimiter;
  readonly algorithm: AlgorithmShorthand;
  readonly capacity: number;
  readonly refillPerSecond: number;
  readonly limit: number;
  readonly windowMs: number;
  readonly emissionIntervalMs: number;
  readonly burst: number;
  readonly retryAfterMs: number;
  readonly name: string;
  readonly store: Store;
  readonly clock: Clock;
  readonly plans: unknown;
  readonly plan: unknown;
}

/** Where each size option belongs, as a type error names it. */
interface Owners {
  readonly capacity: 'a token-bucket option';
  readonly refillPerSecond: 'a token-bucket option';
  readonly limit: 'a window or concurrency option';
  readonly windowMs: 'a window option (fixed-window, sliding-window, sliding-log)';
  readonly emissionIntervalMs: 'a gcra option';
  readonly burst: 'a gcra option';
  readonly retryAfterMs: 'a concurrency option';
}

/**
 * Misplaced<P, Here> is the type of a size option `P` that `Here` does not take: a sentence naming
 * the mistake, so that `{ windowMs, limit, capacity: 5 }` fails to compile with "Type 'number' is not
 * assignable to type '"capacity is a token-bucket option, not a fixed-window one"'" rather than with
 * "not assignable to type 'undefined'". No value is ever that sentence; leaving the option out (or
 * undefined) is all that compiles.
 */
export type Misplaced<P extends SizeOption, Here extends string> = `${P} is ${Owners[P]}, not a ${Here} one`;

/** Refused<K, Here>: each size option of `K` may be left out but never given, its type naming the mistake. */
type Refused<K extends SizeOption, Here extends string> = { readonly [P in K]?: Misplaced<P, Here> };

/** Options refused outright (`limiter`, `plans`, `plan` beside the shorthand; `algorithm`, `name`, `store`, `clock` beside a limiter): never given. */
type NotBeside<K extends keyof AnyShorthand> = { readonly [P in K]?: never };

/** Sizes refused beside a ready `limiter`, each with a sentence. */
type BesideLimiter<K extends SizeOption> = { readonly [P in K]?: `${P} goes to the limiter you build, not beside limiter` };

/** The sizes of every algorithm, each refused by the algorithms that do not take it. */
type Sizes = SizeOption;

/** The options every shorthand algorithm takes besides its sizes. */
export interface ShorthandCommon extends NotBeside<'limiter' | 'plans' | 'plan'> {
  /**
   * The policy's name in headers and store keys (default: derived from the settings, e.g. `tb-60-1`).
   * On a shared `store` one name is one budget: two shorthand limiters with the same settings and no
   * name are refused there; name each, or give both one name to share a budget on purpose.
   */
  readonly name?: string;
  /** Where the counts live, e.g. a RedisStore shared by every process (default: a new in-process MemoryStore). */
  readonly store?: Store;
  /** Where time comes from (default: systemClock, monotonic); a ManualClock in tests. */
  readonly clock?: Clock;
}

/** `algorithm: 'token-bucket'`, the default: bursts of `capacity`, then `refillPerSecond` (TokenBucketLimiter). */
export interface TokenBucketShorthand extends ShorthandCommon, Refused<Exclude<Sizes, 'capacity' | 'refillPerSecond'>, 'token-bucket'> {
  /** The default when neither `limit` nor `windowMs` is given. */
  readonly algorithm?: 'token-bucket';
  /** Bucket size: the largest burst, a positive integer (default 60). */
  readonly capacity?: number;
  /** Tokens added per second, > 0, fractions allowed (default 1). */
  readonly refillPerSecond?: number;
}

/** The sizes of the three window algorithms (one declaration, so an editor shows them before `algorithm` is chosen). */
export interface WindowSizes extends ShorthandCommon {
  /** Most requests (units of cost) per window, a positive integer (default 60). */
  readonly limit?: number;
  /** Window length in milliseconds, a positive integer (default 60000). */
  readonly windowMs?: number;
}

/**
 * `algorithm: 'first-request-window'`: at most `limit` per window of `windowMs` that starts at each key's
 * first request (FirstRequestWindowLimiter). Also what `{ windowMs, limit }` without `algorithm`
 * builds: the window express-rate-limit, @fastify/rate-limit and rate-limiter-flexible count.
 */
export interface FirstRequestWindowShorthand extends WindowSizes, Refused<Exclude<Sizes, 'limit' | 'windowMs'>, 'first-request-window'> {
  /** Chosen by default when `limit` or `windowMs` is given without `algorithm` (and without capacity/refillPerSecond). */
  readonly algorithm?: 'first-request-window';
}

/**
 * `algorithm: 'fixed-window'`: at most `limit` per epoch-aligned window of `windowMs`, every key
 * resetting at the same multiples of `windowMs` (FixedWindowLimiter).
 */
export interface FixedWindowShorthand extends WindowSizes, Refused<Exclude<Sizes, 'limit' | 'windowMs'>, 'fixed-window'> {
  readonly algorithm: 'fixed-window';
}

/** `algorithm: 'sliding-window'`: at most `limit` per `windowMs`, weighted across windows (SlidingWindowLimiter). */
export interface SlidingWindowShorthand extends WindowSizes, Refused<Exclude<Sizes, 'limit' | 'windowMs'>, 'sliding-window'> {
  readonly algorithm: 'sliding-window';
}

/**
 * `algorithm: 'sliding-log'`: at most `limit` in any `windowMs`, exactly (SlidingLogLimiter: limit + 1
 * numbers per key, so limit is at most 10,000).
 */
export interface SlidingLogShorthand extends WindowSizes, Refused<Exclude<Sizes, 'limit' | 'windowMs'>, 'sliding-log'> {
  readonly algorithm: 'sliding-log';
}

/** `algorithm: 'gcra'`: the token bucket in GCRA's own parameters (GcraLimiter; defaults are the token bucket's). */
export interface GcraShorthand extends ShorthandCommon, Refused<Exclude<Sizes, 'emissionIntervalMs' | 'burst'>, 'gcra'> {
  readonly algorithm: 'gcra';
  /** T, the milliseconds between requests at the sustained rate, > 0 (default 1000). */
  readonly emissionIntervalMs?: number;
  /** The most requests admitted at one instant, a positive integer (default 60); τ = (burst − 1) · T. */
  readonly burst?: number;
}

/** `algorithm: 'concurrency'`: at most `limit` requests in flight per key, each released when its work ends (ConcurrencyLimiter). */
export interface ConcurrencyShorthand extends ShorthandCommon, Refused<Exclude<Sizes, 'limit' | 'retryAfterMs'>, 'concurrency'> {
  readonly algorithm: 'concurrency';
  /** Most requests (units of cost) in flight per key at once, a positive integer (default 10). */
  readonly limit?: number;
  /** The wait a denial suggests, in milliseconds, a positive integer (default 1000: Retry-After 1). */
  readonly retryAfterMs?: number;
}

/** A ready limiter: any core limiter, a composite included, on any store; no shorthand option goes with it. */
export interface ReadyLimiter extends BesideLimiter<SizeOption>, NotBeside<Exclude<keyof AnyShorthand, 'limiter' | SizeOption>> {
  /** The limiter that decides every request (its own store, clock and name). */
  readonly limiter: RateLimiter;
}

/**
 * LimiterChoice is the `limiter` option or the shorthand options of one algorithm: one type per
 * `algorithm`, each taking only its own sizes (plus name, store and clock), exactly as chooseLimiter
 * accepts them at run time. `{ algorithm: 'token-bucket', limit: 5 }` and `{ limiter, capacity: 5 }`
 * do not compile.
 */
export type LimiterChoice =
  | ReadyLimiter
  | TokenBucketShorthand
  | FirstRequestWindowShorthand
  | FixedWindowShorthand
  | SlidingWindowShorthand
  | SlidingLogShorthand
  | GcraShorthand
  | ConcurrencyShorthand;

/** The shorthand as the implementation reads it: every option as its real type (the refused ones' sentences are for the type checker only). */
type Loose = Partial<AnyShorthand>;

/** given reads an option; null is refused rather than read as "use the default". */
function given<K extends keyof Loose>(owner: string, o: Loose, k: K): Loose[K] {
  if (o[k] === null) throw new TypeError(`${owner}: ${k} must not be null (leave it out for the default)`);
  return o[k];
}

/** chooseLimiter returns the caller's limiter or builds the shorthand one. */
export function chooseLimiter(owner: string, choice: LimiterChoice): RateLimiter {
  const o = choice as unknown as Loose;
  const present = SHORTHAND.filter((k) => given(owner, o, k) !== undefined);
  if (given(owner, o, 'limiter') !== undefined) {
    if (present.length > 0) throw new TypeError(`${owner}: give either limiter or algorithm options, not both (got limiter and ${present.join(', ')})`);
    return checkLimiter(`${owner}: limiter`, o.limiter);
  }
  // A window without an algorithm is what express-rate-limit, hono-rate-limiter and koa-ratelimit
  // users write ({ windowMs, limit }): it picks the window they count by, started at each key's first
  // request, not the token bucket (and not the epoch-aligned 'fixed-window', which is asked for by name).
  const windowed = o.algorithm === undefined && (o.limit !== undefined || o.windowMs !== undefined) && o.capacity === undefined && o.refillPerSecond === undefined;
  const algorithm = o.algorithm ?? (windowed ? 'first-request-window' : 'token-bucket');
  if (!Object.hasOwn(SIZES, algorithm)) {
    const names = ALGORITHMS.map((a) => `'${a}'`);
    throw new TypeError(`${owner}: algorithm must be ${names.slice(0, -1).join(', ')} or ${names.at(-1)}, got ${describeValue(algorithm)}`);
  }
  const own = sizesOf(algorithm);
  const stray = SIZE_OPTIONS.find((k) => o[k] !== undefined && !own.includes(k));
  if (stray !== undefined && o.algorithm === undefined) throw new TypeError(`${owner}: ${mixedSizes(algorithm, o)}`);
  if (stray !== undefined) throw new TypeError(`${owner}: ${stray} does not apply to algorithm '${algorithm}'${strayHint(algorithm, stray, false)}`);
  const limiter = buildShorthand(algorithm, o);
  const clash = o.store === undefined ? undefined : clashOf(limiter);
  if (clash !== undefined) throw new TypeError(`${owner}: ${clash}`);
  return limiter;
}

/**
 * mixedSizes is the refusal of sizes of two algorithms given without `algorithm`. The sizes most of
 * which one algorithm takes are the ones meant (the defaulted algorithm's on a tie), so the refusal
 * blames the size they leave out: `{ windowMs, limit, capacity }` blames capacity, not limit.
 */
function mixedSizes(defaulted: AlgorithmShorthand, o: Loose): string {
  const given = SIZE_OPTIONS.filter((k) => o[k] !== undefined);
  const taken = (a: AlgorithmShorthand) => given.filter((k) => sizesOf(a).includes(k)).length;
  const meant = ALGORITHMS.reduce((best, a) => (taken(a) > taken(best) ? a : best), defaulted);
  const stray = given.find((k) => !sizesOf(meant).includes(k)) as SizeOption;
  if (meant === defaulted) return `${stray} does not apply to algorithm '${meant}'${strayHint(meant, stray, true)}`;
  const rest = given.filter((k) => sizesOf(meant).includes(k));
  const takers = ALGORITHMS.filter((a) => sizesOf(a).includes(stray)).map((a) => `'${a}'`);
  return `${stray} does not go with ${rest.join(' and ')}: ${stray} is an option of ${takers.join(', ')}; drop it, or name the algorithm and give only its sizes`;
}

/** strayHint says what to write instead of an option the algorithm does not take. */
function strayHint(algorithm: AlgorithmShorthand, stray: SizeOption, defaulted: boolean): string {
  const own = sizesOf(algorithm).join(' and ');
  const takers = ALGORITHMS.filter((a) => sizesOf(a).includes(stray)).map((a) => `'${a}'`);
  const pick = takers.length === 0 ? '' : `; to use ${stray}, pick an algorithm that takes it: ${takers.join(', ')}`;
  return ` (${defaulted ? 'the default, ' : ''}'${algorithm}', takes ${own}${pick})`;
}

/** buildShorthand builds the limiter of `algorithm` from checked shorthand options. */
function buildShorthand(algorithm: AlgorithmShorthand, o: Loose): RateLimiter {
  const common = { ...(o.name === undefined ? {} : { name: o.name }), ...(o.store === undefined ? {} : { store: o.store }), ...(o.clock === undefined ? {} : { clock: o.clock }) };
  if (algorithm === 'token-bucket') {
    const d = SIZES['token-bucket'];
    return new TokenBucketLimiter({ capacity: o.capacity ?? d.capacity, refillPerSecond: o.refillPerSecond ?? d.refillPerSecond, ...common });
  }
  if (algorithm === 'gcra') return new GcraLimiter({ emissionIntervalMs: o.emissionIntervalMs ?? SIZES.gcra.emissionIntervalMs, burst: o.burst ?? SIZES.gcra.burst, ...common });
  if (algorithm === 'concurrency')
    return new ConcurrencyLimiter({ limit: o.limit ?? SIZES.concurrency.limit, ...(o.retryAfterMs === undefined ? {} : { retryAfterMs: o.retryAfterMs }), ...common });
  const d = SIZES[algorithm];
  const windowed = { limit: o.limit ?? d.limit, windowMs: o.windowMs ?? d.windowMs, ...common };
  if (algorithm === 'sliding-log') return new SlidingLogLimiter(windowed);
  if (algorithm === 'first-request-window') return new FirstRequestWindowLimiter(windowed);
  return algorithm === 'sliding-window' ? new SlidingWindowLimiter(windowed) : new FixedWindowLimiter(windowed);
}

/** checkLimiter accepts anything shaped like a RateLimiter; `what` names the option ("rateLimit: limiter"). */
export function checkLimiter(what: string, value: unknown): RateLimiter {
  const l = value as Partial<RateLimiter>;
  if (typeof l !== 'object' || l === null || typeof l.consume !== 'function' || !Array.isArray(l.policies)) {
    throw new TypeError(`${what} must be a ratekeeper RateLimiter, got ${describeValue(value)}`);
  }
  return value as RateLimiter;
}
