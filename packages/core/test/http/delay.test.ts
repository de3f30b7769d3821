/**
 * Delay mode in the plan (http/decide/delay.ts): options validated at construction; a request over the limit
 * is held until it fits (fake timers, a ManualClock moved with them), up to maxDelayMs, else refused
 * with the wait it would have had; the decision is the one at the instant it goes; a client that goes
 * away during the wait releases it (the key's state exactly as before, and decide resolves to null),
 * which a plan that forgets to cancel (mutant) fails. On a remote store the same happens with promises.
 */
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CompositeLimiter, ConcurrencyLimiter, DEFAULT_MAX_DELAY_MS, type Decision, FixedWindowLimiter, ManualClock, TokenBucketLimiter } from '../../src/index.js';
import { type MemoryBinding } from '../../src/store/index.js';
import { type Decided, prepareRateLimit } from '../../src/adapter.js';
import { AsyncMemoryStore } from '../support/async-store.js';

const T0 = 1_700_000_000_000;

interface Req {
  readonly socket: EventEmitter & { destroyed: boolean };
}

function request(): Req {
  const socket = Object.assign(new EventEmitter(), { destroyed: false });
  return { socket };
}

/** leave closes a request's socket, as a client going away does. */
function leave(req: Req): void {
  req.socket.destroyed = true;
  req.socket.emit('close');
}

const adapter = { gone: (req: Req) => req.socket.destroyed, socket: (req: Req) => req.socket };

/** settleWithin drives fake timers (and the clock with them) by `ms`, then reports what decide gave. */
async function advance(clock: ManualClock, ms: number): Promise<void> {
  clock.advance(ms);
  await vi.advanceTimersByTimeAsync(ms);
}

afterEach(() => {
  vi.useRealTimers();
});

describe("mode: 'delay' options", () => {
  it('defaults maxDelayMs to one second and validates both options at construction', () => {
    expect(DEFAULT_MAX_DELAY_MS).toBe(1000);
    const ok = (o: object) => prepareRateLimit('rateLimit', { key: () => 'k', ...o }, [], adapter);
    expect(() => ok({ mode: 'delay' })).not.toThrow();
    expect(() => ok({ mode: 'delay', maxDelayMs: 0 })).not.toThrow();
    expect(() => ok({ mode: 'wait' })).toThrowError(new TypeError(`rateLimit: mode must be 'limit' or 'delay', got "wait"`));
    expect(() => ok({ maxDelayMs: 500 })).toThrowError(new TypeError(`rateLimit: maxDelayMs applies to mode 'delay' only`));
    expect(() => ok({ mode: 'delay', maxDelayMs: -1 })).toThrowError(new RangeError('rateLimit: maxDelayMs must be a whole number of milliseconds from 0 to 2147483647, got -1'));
    expect(() => ok({ mode: 'delay', maxDelayMs: 1.5 })).toThrowError(RangeError);
    expect(() => ok({ mode: 'delay', maxDelayMs: Number.NaN })).toThrowError(RangeError);
    expect(() => ok({ mode: 'delay', maxDelayMs: '100' })).toThrowError(
      new TypeError('rateLimit: maxDelayMs must be a whole number of milliseconds from 0 to 2147483647, got "100"'),
    );
    expect(() => ok({ mode: 'delay', shadow: true })).toThrowError(
      new TypeError("rateLimit: mode 'delay' cannot be combined with shadow: true (shadow mode never holds a request)"),
    );
    const foreign = { mode: 'sync', policies: new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1 }).policies, consume: () => undefined };
    expect(() => ok({ mode: 'delay', limiter: foreign })).toThrowError(/mode 'delay' needs core limiters/);
    // A concurrency limit is a core limiter on a MemoryStore: the refusal must say what is really wrong.
    const leases = new TypeError(
      "rateLimit: mode 'delay' cannot wait for a concurrency limit (a lease returns when a request ends, at no instant known in advance); use mode 'limit'",
    );
    expect(() => ok({ mode: 'delay', algorithm: 'concurrency' })).toThrowError(leases);
    const both = new CompositeLimiter([new FixedWindowLimiter({ limit: 5, windowMs: 1000 }), new ConcurrencyLimiter({ limit: 2 })]);
    expect(() => ok({ mode: 'delay', limiter: both })).toThrowError(leases);
    expect(() => prepareRateLimit('rateLimit', { mode: 'delay' }, [], { gone: adapter.gone })).toThrowError(
      new TypeError("rateLimit: mode 'delay' needs an adapter that watches the client's connection (Express, Fastify, Koa, fetch, Hono)"),
    );
  });
});

describe("mode: 'delay' holds a request until it fits", () => {
  it('passes a request that fits at once, holds the next until its instant, refuses one beyond maxDelayMs', async () => {
    vi.useFakeTimers();
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 2, clock });
    const plan = prepareRateLimit<Req>('rateLimit', { limiter, key: () => 'k', mode: 'delay', maxDelayMs: 1000 }, [], adapter);
    expect(plan.decide(request(), undefined)).toMatchObject({ allowed: true, remaining: 0 });
    let held: Decided | 'pending' = 'pending';
    void (plan.decide(request(), undefined) as Promise<Decided>).then((d) => (held = d));
    const third = plan.decide(request(), undefined) as Promise<Decided>; // 1000 ms: exactly the bound
    const fourth = plan.decide(request(), undefined) as Decision; // 1500 ms: refused at once
    expect(fourth).toMatchObject({ allowed: false, retryAfterMs: 1500 });
    expect(plan.blocks(fourth)).toBe(true);
    await advance(clock, 499);
    expect(held).toBe('pending');
    await advance(clock, 1);
    expect(held).toMatchObject({ allowed: true, remaining: 0, retryAfterMs: 0 });
    await advance(clock, 500);
    await expect(third).resolves.toMatchObject({ allowed: true });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('answers with the decision at the instant the request goes (the headers describe that moment)', async () => {
    vi.useFakeTimers();
    const clock = new ManualClock(T0);
    const limiter = new FixedWindowLimiter({ limit: 2, windowMs: 1000, clock });
    const plan = prepareRateLimit<Req>('rateLimit', { limiter, key: () => 'k', mode: 'delay', maxDelayMs: 5000 }, [], adapter);
    void plan.decide(request(), undefined);
    void plan.decide(request(), undefined);
    const held = plan.decide(request(), undefined) as Promise<Decision>;
    await advance(clock, 1000);
    // At the next window's start: one of two taken, a whole window until empty.
    await expect(held).resolves.toMatchObject({ allowed: true, remaining: 1, resetAfterMs: 1000 });
  });

  it('holds a composite until every member admits', async () => {
    vi.useFakeTimers();
    const clock = new ManualClock(T0);
    const limiter = new CompositeLimiter([new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock }), new FixedWindowLimiter({ limit: 5, windowMs: 60_000, clock })]);
    const plan = prepareRateLimit<Req>('rateLimit', { limiter, key: () => 'k', mode: 'delay', maxDelayMs: 2000 }, [], adapter);
    void plan.decide(request(), undefined);
    const held = plan.decide(request(), undefined) as Promise<Decision>;
    await advance(clock, 1000);
    await expect(held).resolves.toMatchObject({ allowed: true, remaining: 0 });
  });
});

describe("mode: 'delay' and telemetry", () => {
  it('reports each request once, when it goes, with no store time (the hold is not the store), and nothing for a client gone', async () => {
    vi.useFakeTimers();
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock });
    const seen: [boolean, string, number | undefined][] = [];
    const telemetry = { decided: (d: Decision, outcome: string, storeMs: number | undefined) => void seen.push([d.allowed, outcome, storeMs]) };
    const plan = prepareRateLimit<Req>('rateLimit', { limiter, key: () => 'k', mode: 'delay', maxDelayMs: 5000, telemetry }, [], adapter);
    void plan.decide(request(), undefined);
    const held = plan.decide(request(), undefined) as Promise<Decided>;
    const gone = request();
    const left = plan.decide(gone, undefined) as Promise<Decided>;
    leave(gone);
    await expect(left).resolves.toBeNull();
    await advance(clock, 1000);
    await held;
    expect(seen).toEqual([
      [true, 'allowed', undefined],
      [true, 'allowed', undefined],
    ]);
  });
});

describe("mode: 'delay' under a flood", () => {
  it('holds at most what fits within maxDelayMs and answers every other request 429 at once, in arrival order', async () => {
    vi.useFakeTimers();
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter({ capacity: 5, refillPerSecond: 10, clock });
    const plan = prepareRateLimit<Req>('rateLimit', { limiter, key: () => 'attacker', mode: 'delay', maxDelayMs: 1000 }, [], adapter);
    const outcomes = Array.from({ length: 100 }, () => plan.decide(request(), undefined));
    const now = outcomes.filter((o): o is Decision => !(o instanceof Promise));
    expect(now.filter((d) => d.allowed)).toHaveLength(5); // the burst
    expect(now.filter((d) => !d.allowed)).toHaveLength(85); // refused at once: nothing held for them
    expect(vi.getTimerCount()).toBe(10); // one token every 100 ms, for 1000 ms
    const order: number[] = [];
    outcomes.forEach((o, i) => void (o instanceof Promise && o.then(() => order.push(i))));
    await advance(clock, 1000);
    expect(order).toEqual([5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

/** clientLeaves holds one request, lets its client go, and reports what the key held before and after. */
async function clientLeaves(options: { mutant?: boolean } = {}) {
  vi.useFakeTimers();
  const clock = new ManualClock(T0);
  const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock });
  const binding = limiter.binding as MemoryBinding;
  // The mutant: an adapter that does not say where the client's socket is, so the wait is never released.
  const plan = prepareRateLimit<Req>(
    'rateLimit',
    { limiter, key: () => 'k', mode: 'delay', maxDelayMs: 5000 },
    [],
    options.mutant ? { gone: adapter.gone, socket: () => undefined } : adapter,
  );
  void plan.decide(request(), undefined);
  const before = binding.snapshot('k');
  const req = request();
  const held = plan.decide(req, undefined) as Promise<Decided>;
  let outcome: Decided | 'pending' = 'pending';
  void held.then((d) => (outcome = d));
  await advance(clock, 400);
  leave(req);
  await vi.advanceTimersByTimeAsync(0);
  return { before, after: binding.snapshot('k'), outcome, timers: vi.getTimerCount() };
}

describe('a client that goes away during the wait', () => {
  it('releases the wait: the booking is cancelled, the key as before, nothing answered', async () => {
    const { before, after, outcome, timers } = await clientLeaves();
    expect(after).toEqual(before);
    expect(outcome).toBeNull();
    expect(timers).toBe(0);
  });

  it('the check catches a plan whose wait is never released (mutant)', async () => {
    const { before, after } = await clientLeaves({ mutant: true });
    expect(after).not.toEqual(before);
  });

  it('a client that leaves with a later request held behind it keeps its units spent (the later booking relies on them)', async () => {
    vi.useFakeTimers();
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock });
    const plan = prepareRateLimit<Req>('rateLimit', { limiter, key: () => 'k', mode: 'delay', maxDelayMs: 5000 }, [], adapter);
    expect(plan.decide(request(), undefined)).toMatchObject({ allowed: true });
    const first = request();
    const left = plan.decide(first, undefined) as Promise<Decided>; // booked at +1000
    const behind = plan.decide(request(), undefined) as Promise<Decided>; // booked at +2000
    leave(first);
    await expect(left).resolves.toBeNull();
    await advance(clock, 2000);
    await expect(behind).resolves.toMatchObject({ allowed: true });
    // Had the first request's unit come back, the bucket would hold it now; it stays spent.
    expect(limiter.peek('k')).toMatchObject({ allowed: false, retryAfterMs: 1000 });
  });

  it('on a remote store: a client gone before the booking answered is released too', async () => {
    vi.useFakeTimers();
    const clock = new ManualClock(T0);
    const store = new AsyncMemoryStore();
    const limiter = new TokenBucketLimiter<'async'>({ capacity: 1, refillPerSecond: 1, clock, store });
    const plan = prepareRateLimit<Req>('rateLimit', { limiter, key: () => 'k', mode: 'delay' }, [], adapter);
    await expect(plan.decide(request(), undefined)).resolves.toMatchObject({ allowed: true });
    const req = request();
    const held = plan.decide(req, undefined) as Promise<Decided>;
    leave(req); // before the store answered
    await expect(held).resolves.toBeNull();
    const next = plan.decide(request(), undefined) as Promise<Decided>;
    await vi.advanceTimersByTimeAsync(0);
    await advance(clock, 1000);
    await expect(next).resolves.toMatchObject({ allowed: true }); // the released unit was free again: 1000 ms, not 2000
  });
});
