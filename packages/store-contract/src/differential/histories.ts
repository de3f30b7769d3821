/**
 * The one source of random limiter configurations and request histories for every store's
 * differential (./differential-checks.ts, and the stores' own property tests): the same history is
 * replayed on the memory store and on the store under test with one ManualClock, step by step. Rates
 * are fractional and awkward, clocks jump and step back (whole milliseconds).
 *
 * Two kinds of store need the clock held back from what the reference model would accept:
 * - A store that deletes state once it has been empty for a grace (the SQL stores' EXPIRED_GRACE_MS)
 *   reads such state as missing to a clock stepped back that far: `Instants` never goes back `graceMs`
 *   or more behind the latest instant (memory keeps empty states until its table is full).
 * - A store whose keys expire by a real clock (Redis's TTLs) while the histories' clock is virtual
 *   would see a key vanish while the ManualClock stands still: `historiesWith({ marginMs })` keeps
 *   every TTL a step can write at `marginMs` or more (refills of at most 1000 / marginMs per second,
 *   windows and bans longer than it) and its `Instants` move an instant in a fixed window's last
 *   `marginMs` to the next window's start. `marginMs: 0` (the default set exported below) bounds none.
 */
import {
  type Clock,
  FirstRequestWindowLimiter,
  FixedWindowLimiter,
  GcraLimiter,
  type Limiter,
  type Mode,
  type Policy,
  SlidingLogLimiter,
  SlidingWindowLimiter,
  type Store,
  TokenBucketLimiter,
} from '@ratekeeper/core';
import fc from 'fast-check';

export type Spec =
  | { readonly algorithm: 'token-bucket'; readonly capacity: number; readonly refillPerSecond: number }
  | { readonly algorithm: 'sliding-window' | 'fixed-window' | 'first-request-window' | 'sliding-log'; readonly limit: number; readonly windowMs: number };

/** GcraSpec: a GcraLimiter (the token bucket's step under GCRA's parameters, T kept exactly). */
export type GcraSpec = { readonly algorithm: 'gcra'; readonly burst: number; readonly emissionIntervalMs: number };

/** AnySpec: every rate algorithm a differential replays. */
export type AnySpec = Spec | GcraSpec;

/** The rate algorithms of Spec, in the order the checks list them. */
export const ALGORITHMS = ['token-bucket', 'sliding-window', 'fixed-window', 'first-request-window', 'sliding-log'] as const;
/** Every rate algorithm, GCRA included: what the differential replays. */
export const RATE_ALGORITHMS = ['token-bucket', 'gcra', 'sliding-window', 'fixed-window', 'first-request-window', 'sliding-log'] as const;
export type RateAlgorithm = (typeof RATE_ALGORITHMS)[number];

export interface Step {
  readonly op: 'consume' | 'peek' | 'allow' | 'reset' | 'refund';
  readonly dt: number;
  readonly cost: number;
  readonly key: number;
}

/** BookingStep is a step of a reservation history (bookingSteps): a Step, or a reserve or a cancel. */
export interface BookingStep extends Omit<Step, 'op'> {
  readonly op: Step['op'] | 'reserve' | 'cancel';
  /** A reserve's maxWaitMs (undefined: no bound). */
  readonly maxWaitMs?: number | undefined;
  /** A cancel's reservation: this index modulo the reservations made so far. */
  readonly pick?: number;
}

/** The ops of a rate history, consume weighted four times. */
export const RATE_OPS: readonly Step['op'][] = ['consume', 'consume', 'consume', 'consume', 'peek', 'allow', 'reset', 'refund'];

export function limitOf(spec: AnySpec): number {
  if (spec.algorithm === 'token-bucket') return spec.capacity;
  return spec.algorithm === 'gcra' ? spec.burst : spec.limit;
}

/** scaleOf is the time one unit takes to come back: a refill interval or a window. */
function scaleOf(spec: AnySpec): number {
  if (spec.algorithm === 'token-bucket') return 1000 / spec.refillPerSecond;
  return spec.algorithm === 'gcra' ? spec.emissionIntervalMs : spec.windowMs;
}

/** withLimit is `spec` with its limit (capacity, burst) replaced. */
function withLimit(spec: AnySpec, n: number): AnySpec {
  if (spec.algorithm === 'token-bucket') return { ...spec, capacity: n };
  return spec.algorithm === 'gcra' ? { ...spec, burst: n } : { ...spec, limit: n };
}

export function makeLimiter<M extends Mode>(spec: AnySpec, store: Store<M>, clock: Clock, name?: string): Limiter<Policy, M> {
  const common = name === undefined ? { store, clock } : { store, clock, name };
  if (spec.algorithm === 'token-bucket') return new TokenBucketLimiter<M>({ ...common, capacity: spec.capacity, refillPerSecond: spec.refillPerSecond });
  if (spec.algorithm === 'gcra') return new GcraLimiter<M>({ ...common, burst: spec.burst, emissionIntervalMs: spec.emissionIntervalMs });
  if (spec.algorithm === 'sliding-window') return new SlidingWindowLimiter<M>({ ...common, limit: spec.limit, windowMs: spec.windowMs });
  if (spec.algorithm === 'sliding-log') return new SlidingLogLimiter<M>({ ...common, limit: spec.limit, windowMs: spec.windowMs });
  if (spec.algorithm === 'first-request-window') return new FirstRequestWindowLimiter<M>({ ...common, limit: spec.limit, windowMs: spec.windowMs });
  return new FixedWindowLimiter<M>({ ...common, limit: spec.limit, windowMs: spec.windowMs });
}

function clockStep(scaleMs: number): fc.Arbitrary<number> {
  const scale = Math.ceil(Math.min(scaleMs, 1e7));
  return fc.oneof(
    { arbitrary: fc.constant(0), weight: 4 },
    { arbitrary: fc.integer({ min: 1, max: Math.ceil(scale / 8) }), weight: 3 },
    { arbitrary: fc.integer({ min: 1, max: 2 * scale }), weight: 2 },
    { arbitrary: fc.constant(scale), weight: 1 }, // exactly one window or refill later: the boundary
    { arbitrary: fc.integer({ min: -scale, max: -1 }), weight: 1 },
  );
}

/** An epoch instant between 2020 and 2030. */
export const startInstant = fc.integer({ min: 1_577_836_800_000, max: 1_893_456_000_000 });

/** HistoriesOptions: what a store needs held back (see the file's opening). */
export interface HistoriesOptions {
  /** Every TTL a step writes lasts at least this long; fixed-window and first-request-window instants stay out of a window's last marginMs (default 0). */
  readonly marginMs?: number;
}

/**
 * Instants: `dt` after `now`, never `graceMs` or more before the latest instant so far (a store that
 * deletes expired state reads it as empty to a clock that far back: pass its EXPIRED_GRACE_MS;
 * Infinity bounds nothing), and out of the last `marginMs` of any fixed window among `members`, and of
 * any first-request window an earlier instant could have started (a window starts at an instant of
 * the history: the window [s, s + W) of every instant s so far is avoided).
 */
export class Instants {
  readonly #graceMs: number;
  readonly #windows: readonly number[];
  readonly #firstRequest: readonly number[];
  readonly #marginMs: number;
  /** The instants so far (each may have started a first-request window), kept only where one is a member. */
  readonly #seen: number[] = [];
  #now: number;
  #latest: number;
  constructor(start: number, graceMs: number, members: readonly AnySpec[] = [], marginMs = 0) {
    this.#graceMs = graceMs;
    this.#marginMs = marginMs;
    const windowsOf = (algorithm: 'fixed-window' | 'first-request-window') => (marginMs > 0 ? members.flatMap((m) => (m.algorithm === algorithm ? [m.windowMs] : [])) : []);
    this.#windows = windowsOf('fixed-window');
    this.#firstRequest = windowsOf('first-request-window');
    this.#now = this.#latest = this.#outOfMargin(start);
    this.#see(this.#now);
  }
  /** start is the history's first instant (the given start, moved out of a fixed window's margin). */
  get start(): number {
    return this.#latest;
  }
  next(dt: number): number {
    this.#now = this.#outOfMargin(Math.max(this.#now + dt, this.#latest - (this.#graceMs - 1)));
    this.#latest = Math.max(this.#latest, this.#now);
    this.#see(this.#now);
    return this.#now;
  }
  #see(at: number): void {
    if (this.#firstRequest.length > 0) this.#seen.push(at);
  }
  #outOfMargin(at: number): number {
    let t = at;
    for (let moved = true; moved; ) {
      moved = false;
      for (const windowMs of this.#windows) {
        const start = Math.floor(t / windowMs) * windowMs;
        if (t - start > windowMs - this.#marginMs) t = start + windowMs;
      }
      // Moving only forward, each move to a window's end: settles after at most one move per instant seen.
      for (const windowMs of this.#firstRequest) {
        for (const s of this.#seen) {
          if (t > s + windowMs - this.#marginMs && t < s + windowMs) {
            t = s + windowMs;
            moved = true;
          }
        }
      }
    }
    return t;
  }
}

/** historiesWith answers the generators for a store that needs `marginMs` (see the file's opening). */
export function historiesWith(options: HistoriesOptions = {}) {
  const margin = options.marginMs ?? 0;
  const rates = [1, 0.5, 1 / 3, 0.3, 0.07, 7, 0.013, 1000].filter((r) => 1000 / r >= margin);
  const refill = fc.oneof(fc.constantFrom(...rates), fc.double({ min: 0.001, max: margin > 0 ? Math.min(50, 1000 / margin) : 50, noNaN: true }));
  const windows = [1, 1000, 1001, 3000, 60_000].filter((w) => w >= margin);
  const windowMs = fc.oneof(fc.constantFrom(...windows), fc.integer({ min: Math.max(2, margin + 1), max: 20_000 }));
  const intervals = [1, 333.25, 1000, 1445, 3600].filter((t) => t >= margin);
  const emissionIntervalMs = fc.oneof(
    fc.constantFrom(...intervals),
    fc.integer({ min: Math.max(1, margin), max: 20_000 }),
    fc.double({ min: Math.max(0.5, margin), max: 5000, noNaN: true }),
  );
  const specsOf = (limit: fc.Arbitrary<number>) => ({
    'token-bucket': fc.record({ algorithm: fc.constant('token-bucket' as const), capacity: limit, refillPerSecond: refill }),
    gcra: fc.record({ algorithm: fc.constant('gcra' as const), burst: limit, emissionIntervalMs }),
    'sliding-window': fc.record({ algorithm: fc.constant('sliding-window' as const), limit, windowMs }),
    'fixed-window': fc.record({ algorithm: fc.constant('fixed-window' as const), limit, windowMs: windowMs.map((w) => w + margin) }),
    'first-request-window': fc.record({ algorithm: fc.constant('first-request-window' as const), limit, windowMs: windowMs.map((w) => w + margin) }),
    'sliding-log': fc.record({ algorithm: fc.constant('sliding-log' as const), limit, windowMs }),
  });
  const limit = fc.integer({ min: 1, max: 12 });
  const specs = specsOf(limit);
  /**
   * bookingSpecs: the specs of a booking history, half of them with a limit of 1 to 3, so that queues
   * form (bookings wait behind bookings, and are cancelled while they wait) in most of those histories.
   */
  const bookingSpecs = specsOf(fc.oneof(fc.integer({ min: 1, max: 3 }), limit));

  /** composites: two to four members of different algorithms (GCRA is the token bucket's step: not again). */
  const composites: fc.Arbitrary<Spec[]> = fc
    .subarray([specs['token-bucket'], specs['sliding-window'], specs['fixed-window'], specs['first-request-window'], specs['sliding-log']], { minLength: 2 })
    .chain((arbs) => fc.tuple(...arbs))
    .map((members) => members as Spec[]);

  /** steps: histories of `ops` (default RATE_OPS) on `keys` keys (default 3), of `minLength` steps or more (default 1, at most 40). */
  function steps(
    members: readonly AnySpec[],
    shape: number | { readonly keys?: number; readonly ops?: readonly Step['op'][]; readonly minLength?: number } = {},
  ): fc.Arbitrary<Step[]> {
    const { keys = 3, ops = RATE_OPS, minLength = 1 } = typeof shape === 'number' ? { keys: shape } : shape;
    const most = Math.max(...members.map(limitOf));
    const step = fc.record({
      op: fc.constantFrom<Step['op']>(...ops),
      dt: clockStep(Math.min(...members.map(scaleOf))),
      cost: fc.oneof({ arbitrary: fc.constant(1), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: most + 2 }), weight: 1 }),
      key: fc.integer({ min: 0, max: keys - 1 }),
    });
    return fc.array(step, { minLength, maxLength: 40 });
  }

  /**
   * banHistories: a limiter of `algorithm` with a small limit (1 to 3, so its denials, and so bans, come
   * often), banMs on the scale of its window or refill, and steps on the smaller of the two scales: bans
   * start, are denied, lifted by refunds, end, and are seen again by a clock stepping back.
   */
  function banHistories(algorithm: RateAlgorithm): fc.Arbitrary<{ spec: AnySpec; banMs: number; history: Step[] }> {
    return fc
      .tuple(specs[algorithm] as fc.Arbitrary<AnySpec>, fc.integer({ min: 1, max: 3 }))
      .map(([spec, n]) => withLimit(spec, n))
      .chain((spec) => {
        const scale = Math.ceil(Math.min(scaleOf(spec), 1e7));
        return fc.tuple(fc.constant(spec), fc.integer({ min: Math.max(1, margin + 1), max: Math.max(margin + 1, 3 * scale) }));
      })
      .chain(([spec, banMs]) => {
        const step = fc.record({
          op: fc.constantFrom<Step['op']>('consume', 'consume', 'consume', 'consume', 'peek', 'allow', 'refund', 'refund', 'reset'),
          dt: clockStep(Math.min(scaleOf(spec), banMs)),
          cost: fc.oneof({ arbitrary: fc.constant(1), weight: 4 }, { arbitrary: fc.integer({ min: 1, max: limitOf(spec) + 1 }), weight: 1 }),
          key: fc.integer({ min: 0, max: 1 }),
        });
        return fc.record({ spec: fc.constant(spec), banMs: fc.constant(banMs), history: fc.array(step, { minLength: 10, maxLength: 40, size: 'max' }) });
      });
  }

  /**
   * bookingSteps: histories where reservations and their cancels mix with consumes, peeks, resets and
   * refunds on a few keys (a cancel picks any reservation made before, granted or not, cancelled or not),
   * up to 40 steps drawn at full size (fast-check's default size keeps arrays to a few steps, where a
   * booking rarely waits behind another: 3 % of histories against 15 % at full size).
   */
  function bookingSteps(members: readonly AnySpec[], keys = 2): fc.Arbitrary<BookingStep[]> {
    const most = Math.max(...members.map(limitOf));
    const scale = Math.min(...members.map(scaleOf));
    const step = fc.record({
      op: fc.constantFrom<BookingStep['op']>('reserve', 'reserve', 'reserve', 'reserve', 'cancel', 'cancel', 'consume', 'peek', 'reset', 'refund'),
      dt: clockStep(scale),
      cost: fc.oneof({ arbitrary: fc.constant(1), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: most + 1 }), weight: 1 }),
      key: fc.integer({ min: 0, max: keys - 1 }),
      maxWaitMs: fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, fc.constant(0), fc.integer({ min: 1, max: Math.ceil(Math.min(4 * scale, 1e8)) })),
      pick: fc.nat(),
    });
    return fc.array(step, { minLength: 1, maxLength: 40, size: 'max' });
  }

  /** nextInstant moves `now` by `dt`, out of the last marginMs of any fixed window among `members` (no grace bound; first-request windows: only those `now + dt` itself starts). */
  function nextInstant(now: number, dt: number, members: readonly AnySpec[]): number {
    return new Instants(now + dt, Number.POSITIVE_INFINITY, members, margin).start;
  }

  return { marginMs: margin, specs, bookingSpecs, composites, steps, banHistories, bookingSteps, nextInstant };
}

/** LeaseSpec: a ConcurrencyLimiter of `limit` (leases taken by consume, given back by release). */
export type LeaseSpec = { readonly algorithm: 'concurrency'; readonly limit: number };

/**
 * MAX_LEASE_SPAN_MS: the most a lease history's clock moves from its start, well inside the default
 * lease TTL (30 s): the memory store's leases never expire, a shared store's expire by time.
 */
export const MAX_LEASE_SPAN_MS = 20_000;

/**
 * leaseHistories: a small concurrency limit (1 to 4) and steps of acquires (consume), peeks, allows,
 * releases (the step's `refund`) and resets on two keys, the clock moving by at most half a second a
 * step, forwards or back, so no history spans MAX_LEASE_SPAN_MS.
 */
export const leaseHistories: fc.Arbitrary<{ spec: LeaseSpec; history: Step[] }> = fc.integer({ min: 1, max: 4 }).chain((n) =>
  fc.record({
    spec: fc.constant({ algorithm: 'concurrency' as const, limit: n }),
    history: fc.array(
      fc.record({
        op: fc.constantFrom<Step['op']>('consume', 'consume', 'consume', 'peek', 'allow', 'refund', 'refund', 'reset'),
        dt: fc.oneof(
          { arbitrary: fc.constant(0), weight: 4 },
          { arbitrary: fc.integer({ min: 1, max: 500 }), weight: 3 },
          { arbitrary: fc.integer({ min: -500, max: -1 }), weight: 1 },
        ),
        cost: fc.oneof({ arbitrary: fc.constant(1), weight: 4 }, { arbitrary: fc.integer({ min: 1, max: n + 1 }), weight: 1 }),
        key: fc.integer({ min: 0, max: 1 }),
      }),
      { minLength: 1, maxLength: MAX_LEASE_SPAN_MS / 500 },
    ),
  }),
);

const unbounded = historiesWith();
/** The generators for a store that needs no margin (every store but one expiring keys by a real clock). */
export const { specs, composites, steps, banHistories, bookingSteps } = unbounded;
