/**
 * reserve and wait on Redis (core's reserve.ts contract, lua/reserve-script.ts): the same random
 * sequences of reservations, cancels and clock moves give the same reservations on the memory store
 * and on Redis in client time (instants, decisions, cancel verdicts), for every algorithm and for
 * composites, a cancel anywhere in the queue included; a cancel of the latest booking or a refused
 * reservation leaves the keys byte for byte as they were (the ledger's last id apart); a cost
 * above capacity fails at once; a store that cannot answer books nothing and wait rejects; on the
 * server's clock, wait resolves at the instant and not a millisecond before.
 */
import { EventEmitter } from 'node:events';
import { CompositeLimiter, ManualClock, MemoryStore, type RateLimiter, type Reservation, TokenBucketLimiter, WaitError, reserve, wait } from '@ratekeeper/core';
import { CANCELLABLE_BOOKINGS } from '@ratekeeper/core/store';
import { type Decided, prepareRateLimit } from '@ratekeeper/core/adapter';
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { type AnySpec, type BookingStep, replayBookings } from '@ratekeeper/store-contract';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { type FailureInfo, RedisStore, storageKey } from '../src/index.js';
import { CANCELLABLE } from '../src/lua/ledger.js';
import { CLIENT_KINDS, type ClientKind, client, closeAll, ioredis } from './support/clients.js';
import { MARGIN_MS, type Spec, limitOf, makeLimiter, nextInstant, specs, startInstant } from './support/histories.js';
import { type RedisServer, freePort, startServer } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';
import { immortalKeys } from './support/ttl.js';

let server: RedisServer;
let redis: Redis;
const stores = new Map<ClientKind, RedisStore>();
const failures: FailureInfo[] = [];
let run = 0;
const RUNS = Number(process.env['RATEKEEPER_DIFF_RUNS'] ?? 25);
const T0 = 1_700_000_000_000;

beforeAll(async () => {
  server = await startServer();
  redis = ioredis(server.port);
  for (const kind of CLIENT_KINDS) {
    const store = new RedisStore({ client: await client(kind, server.port), time: 'client', timeoutMs: 5000, onFailure: 'closed' });
    store.on('failure', (info) => failures.push(info));
    stores.set(kind, store);
  }
});

afterEach(() => {
  vi.useRealTimers();
});

afterAll(async () => {
  await closeAll();
  await server?.stop();
});

type Op = { kind: 'reserve'; cost: number; maxWaitMs: number | undefined } | { kind: 'cancel'; which: number } | { kind: 'move'; dt: number };

function ops(members: readonly Spec[]): fc.Arbitrary<Op[]> {
  const limit = Math.max(...members.map(limitOf));
  const op: fc.Arbitrary<Op> = fc.oneof(
    {
      arbitrary: fc.record({
        kind: fc.constant('reserve' as const),
        cost: fc.oneof({ arbitrary: fc.constant(1), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: limit + 1 }), weight: 1 }),
        maxWaitMs: fc.option(fc.integer({ min: 0, max: 30_000 }), { nil: undefined }),
      }),
      weight: 5,
    },
    { arbitrary: fc.record({ kind: fc.constant('cancel' as const), which: fc.nat() }), weight: 2 },
    { arbitrary: fc.record({ kind: fc.constant('move' as const), dt: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 5000 })) }), weight: 2 },
  );
  return fc.array(op, { minLength: 1, maxLength: 30 });
}

const visible = (r: Reservation<'sync' | 'async'>) => ({ ok: r.ok, delayMs: r.delayMs, at: r.at, decision: r.decision });

/** replay runs one sequence on memory and on Redis and requires the same answers, step by step. */
async function replay(members: readonly Spec[], from: number, sequence: readonly Op[], kind: ClientKind): Promise<void> {
  // Out of a fixed window's last MARGIN_MS, as every later instant (a key written there expires in real time at once).
  const start = nextInstant(from, 0, members);
  const clock = new ManualClock(start);
  const memoryStore = new MemoryStore();
  const store = stores.get(kind) as RedisStore;
  const build = <M extends 'sync' | 'async'>(s: MemoryStore | RedisStore): RateLimiter<M> =>
    (members.length === 1 ? makeLimiter(members[0] as Spec, s, clock) : new CompositeLimiter(members.map((spec) => makeLimiter(spec, s, clock)))) as unknown as RateLimiter<M>;
  const memory = build<'sync'>(memoryStore);
  const remote = build<'async'>(store);
  const key = `reserve${run++}`;
  const booked: [Reservation<'sync'>, Reservation<'async'>][] = [];
  let now = start;
  for (const [i, op] of sequence.entries()) {
    const where = `step ${i} (${JSON.stringify(op)} at ${now})`;
    if (op.kind === 'move') {
      now = nextInstant(now, op.dt, members);
      clock.set(now);
    } else if (op.kind === 'cancel') {
      const pair = booked[op.which % Math.max(1, booked.length)]; // anywhere in the queue
      if (pair === undefined) continue;
      expect(await pair[1].cancel(), where).toBe(pair[0].cancel());
    } else {
      const options = op.maxWaitMs === undefined ? {} : { maxWaitMs: op.maxWaitMs };
      const want = reserve(memory, key, op.cost, options);
      const got = await reserve(remote, key, op.cost, options);
      expect(visible(got), where).toEqual(visible(want));
      if (want.ok) booked.push([want, got]);
    }
  }
  expect(failures).toEqual([]);
}

const composites = fc
  .subarray([specs['token-bucket'], specs['sliding-window'], specs['fixed-window'], specs['sliding-log']], { minLength: 2 })
  .chain((arbs) => fc.tuple(...arbs))
  .map((m) => m as Spec[]);

function property(members: fc.Arbitrary<Spec[]>, kind: ClientKind) {
  return fc.asyncProperty(
    members.chain((m) => fc.tuple(fc.constant(m), startInstant, ops(m))),
    ([m, start, sequence]) => replay(m, start, sequence, kind),
  );
}

describeRedis('reserve on Redis books exactly as on the memory store', () => {
  it("starts a history out of a fixed window's last moments (CI's counterexample: Redis expired the window by its real clock)", async () => {
    const members: Spec[] = [
      { algorithm: 'token-bucket', capacity: 7, refillPerSecond: 0.013 },
      { algorithm: 'sliding-window', limit: 1, windowMs: 60_000 },
      { algorithm: 'fixed-window', limit: 9, windowMs: 4000 },
      { algorithm: 'sliding-log', limit: 5, windowMs: 13_509 },
    ];
    const sequence: Op[] = [
      { kind: 'reserve', cost: 1, maxWaitMs: undefined },
      { kind: 'cancel', which: 0 },
      { kind: 'reserve', cost: 1, maxWaitMs: 26_238 },
      { kind: 'reserve', cost: 1, maxWaitMs: 5 },
    ];
    await replay(members, 1_656_741_599_994, sequence, 'ioredis'); // 6 ms before a 4-second window ends
  });

  it("cancels a booking whose members a refund and a consume brought back to the booking's states, as memory does (the differential's counterexample, seed 1216067642: a consume's value carries an expiry tail)", async () => {
    const members: AnySpec[] = [
      { algorithm: 'sliding-window', limit: 1, windowMs: 9000 },
      { algorithm: 'fixed-window', limit: 6, windowMs: 9806 },
      { algorithm: 'first-request-window', limit: 10, windowMs: 2007 },
    ];
    const steps: BookingStep[] = [
      { op: 'reserve', dt: 1, cost: 1, key: 0 },
      { op: 'reserve', dt: 2007, cost: 1, key: 0 },
      { op: 'refund', dt: 0, cost: 1, key: 0 },
      { op: 'consume', dt: 0, cost: 1, key: 0 },
      { op: 'cancel', dt: 1, cost: 1, key: 0, pick: 1 },
      { op: 'reserve', dt: 1, cost: 1, key: 0, maxWaitMs: 0 },
    ];
    const store = stores.get('ioredis') as RedisStore;
    await replayBookings({ store, fresh: () => `tail${run++}`, keys: ['k'], graceMs: 1, marginMs: MARGIN_MS, together: false }, members, 1_577_836_800_000, steps);
  });

  for (const algorithm of ['token-bucket', 'sliding-window', 'fixed-window', 'sliding-log'] as const) {
    it(`gives the same ${algorithm} reservations and cancels on memory and on Redis`, async () => {
      await fc.assert(
        property(
          specs[algorithm].map((s) => [s as Spec]),
          'ioredis',
        ),
        { numRuns: RUNS },
      );
    });
  }

  for (const kind of CLIENT_KINDS) {
    it(`gives the same composite reservations and cancels on memory and on Redis through ${kind}`, async () => {
      await fc.assert(property(composites, kind), { numRuns: RUNS });
    });
  }
});

/** raw reads a key's bytes and TTL (binary-safe). */
async function raw(key: string): Promise<{ value: string | null; ttl: number }> {
  const buffer = await redis.getBuffer(key);
  return { value: buffer === null ? null : buffer.toString('hex'), ttl: await redis.pttl(key) };
}

describeRedis('a refused or cancelled reservation leaves no trace on Redis', () => {
  it('puts back every state byte for byte with the rest of its TTL, and the booking before it', async () => {
    const store = stores.get('ioredis') as RedisStore;
    const clock = new ManualClock(T0);
    const bucket = new TokenBucketLimiter<'async'>({ capacity: 2, refillPerSecond: 1, clock, store, name: 'trace-b' });
    const log = makeLimiter<'async'>({ algorithm: 'sliding-log', limit: 2, windowMs: 10_000 }, store, clock, 'trace-l');
    const both = new CompositeLimiter([bucket, log]);
    const key = `trace${run++}`;
    const keys = ['trace-b', 'trace-l'].flatMap((name) => [storageKey('rk:', name, key), `${storageKey('rk:', name, key)}:r`]);
    const snapshot = () => Promise.all(keys.map(raw));
    const taken = Date.now(); // before the TTLs are written: a TTL read later has run down since
    expect((await reserve(both, key, 2)).delayMs).toBe(0);
    expect((await reserve(both, key, 1)).delayMs).toBe(10_000); // booked: the log is full for 10 s
    const before = await snapshot();
    const third = await reserve(both, key, 1);
    expect(third.delayMs).toBe(10_000);
    expect(await third.cancel()).toBe(true);
    const after = await snapshot();
    // The TTLs are computed again from the limiter's clock, which stood still while Redis's went on.
    const elapsed = Date.now() - taken + 1;
    for (const [i, k] of keys.entries()) {
      // A ledger (`:r`) keeps the last id it gave (bytes 16 to 24), so that no id is given twice.
      const bytes = (s: string | null | undefined) => (k.endsWith(':r') && s ? s.slice(0, 32) + s.slice(48) : s);
      expect(bytes(after[i]?.value), k).toBe(bytes(before[i]?.value));
      expect(after[i]?.ttl, k).toBeLessThanOrEqual((before[i]?.ttl as number) + elapsed);
      expect(after[i]?.ttl, k).toBeGreaterThan((before[i]?.ttl as number) - 1000);
    }
    expect(await third.cancel()).toBe(false); // at most once
    // Refused (too long, never): nothing written.
    expect(await reserve(both, key, 1, { maxWaitMs: 9_999 })).toMatchObject({ ok: false, decision: { allowed: false, retryAfterMs: 10_000 } });
    expect(await reserve(both, key, 3)).toMatchObject({ ok: false, delayMs: Infinity, decision: { retryAfterMs: Infinity } });
    expect((await snapshot()).map((s) => s.value)).toEqual(after.map((s) => s.value));
  });

  it('cancels a booking with others behind it, which keep their instants; refuses once its instant has come', async () => {
    const store = stores.get('node-redis') as RedisStore;
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter<'async'>({ capacity: 2, refillPerSecond: 1, clock, store, name: 'late-cancel' });
    const key = `late${run++}`;
    await reserve(limiter, key, 2);
    const booked = [];
    for (let i = 0; i < 4; i++) booked.push(await reserve(limiter, key));
    expect(booked.map((r) => r.delayMs)).toEqual([1000, 2000, 3000, 4000]);
    expect(await booked[1]?.cancel()).toBe(true);
    expect(await booked[1]?.cancel()).toBe(false);
    expect((await reserve(limiter, key)).delayMs).toBe(4000); // behind the last booking, a unit sooner than 5000
    clock.advance(1000);
    expect(await booked[0]?.cancel()).toBe(false);
  });

  it(`keeps the latest ${CANCELLABLE_BOOKINGS} bookings of a key cancellable, as the memory store does`, async () => {
    expect(CANCELLABLE).toBe(CANCELLABLE_BOOKINGS);
    const store = stores.get('ioredis') as RedisStore;
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter<'async'>({ capacity: 1, refillPerSecond: 1, clock, store, name: 'cap' });
    const key = `cap${run++}`;
    await reserve(limiter, key);
    const booked = [];
    for (let i = 0; i <= CANCELLABLE_BOOKINGS; i++) booked.push(await reserve(limiter, key));
    expect(await booked[0]?.cancel()).toBe(false);
    expect(await booked[1]?.cancel()).toBe(true);
    expect(await booked[CANCELLABLE_BOOKINGS]?.cancel()).toBe(true);
  });

  it('reset drops the bookings with the state: the next reservation is served at once, as on an empty key', async () => {
    const store = stores.get('ioredis') as RedisStore;
    const clock = new ManualClock(T0);
    const bucket = new TokenBucketLimiter<'async'>({ capacity: 1, refillPerSecond: 1, clock, store, name: 'reset-b' });
    const log = makeLimiter<'async'>({ algorithm: 'sliding-log', limit: 1, windowMs: 10_000 }, store, clock, 'reset-l');
    const both = new CompositeLimiter([bucket, log]);
    const key = `reset${run++}`;
    await reserve(bucket, key);
    expect((await reserve(bucket, key)).delayMs).toBe(1000);
    expect((await reserve(bucket, key)).delayMs).toBe(2000);
    await bucket.reset(key);
    expect(await redis.exists(`${storageKey('rk:', 'reset-b', key)}:r`)).toBe(0);
    expect((await reserve(bucket, key)).delayMs).toBe(0);
    const other = `reset${run++}`;
    await reserve(both, other);
    expect((await reserve(both, other)).delayMs).toBe(10_000);
    await both.reset(other);
    expect((await reserve(both, other)).delayMs).toBe(0);
  });

  it('fails a cost above capacity at once: wait rejects "never" and no key is written', async () => {
    const store = stores.get('ioredis') as RedisStore;
    const limiter = new TokenBucketLimiter<'async'>({ capacity: 3, refillPerSecond: 1, clock: new ManualClock(T0), store, name: 'too-big' });
    const key = `big${run++}`;
    await expect(wait(limiter, key, 4)).rejects.toMatchObject({ name: 'WaitError', reason: 'never' });
    expect(await redis.exists(storageKey('rk:', 'too-big', key), `${storageKey('rk:', 'too-big', key)}:r`)).toBe(0);
  });

  it('leaves no key without a TTL', async () => {
    expect(await immortalKeys(redis)).toEqual([]);
  });
});

describeRedis("Go's reservation bugs, on Redis (core's test/regressions/go-reservations.test.ts)", () => {
  it('a reservation that was not ok changes no later delay (golang/go#52584)', async () => {
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter<'async'>({ capacity: 3, refillPerSecond: 10, clock, store: stores.get('ioredis') as RedisStore, name: 'go-52584' });
    const key = `go${run++}`;
    expect((await reserve(limiter, key, 3)).delayMs).toBe(0);
    expect((await reserve(limiter, key, 4)).ok).toBe(false);
    expect((await reserve(limiter, key, 2, { maxWaitMs: 100 })).ok).toBe(false);
    expect((await reserve(limiter, key, 1)).delayMs).toBe(100);
  });

  it('cancelling in reverse order puts the key back byte for byte at a fractional rate (golang/go#69419)', async () => {
    const clock = new ManualClock(T0);
    // 0.06 per second: Go's case of 60 per second (an interval of 16.67 ms, a fraction in binary) on a
    // scale of seconds, since each key's TTL runs in real time while the ManualClock stands still.
    const limiter = new TokenBucketLimiter<'async'>({ capacity: 1, refillPerSecond: 0.06, clock, store: stores.get('node-redis') as RedisStore, name: 'go-69419' });
    const key = `go${run++}`;
    await reserve(limiter, key);
    const state = storageKey('rk:', 'go-69419', key);
    const start = await raw(state);
    const booked = [];
    for (let i = 0; i < 3; i++) booked.push(await reserve(limiter, key));
    expect(booked.map((r) => r.delayMs)).toEqual([16_667, 33_334, 50_001]); // whole ms, rounded up: never early
    const full = await raw(state);
    expect(await booked[0]?.cancel()).toBe(true); // a bucket of 1 refills by the next instant anyway: the key is as it was
    expect((await raw(state)).value).toBe(full.value);
    const cancelled = [];
    for (const r of [...booked].reverse()) cancelled.push(await r.cancel());
    expect(cancelled).toEqual([true, true, false]);
    expect((await raw(state)).value).toBe(start.value);
    expect(await redis.exists(`${state}:r`)).toBe(0);
    expect((await reserve(limiter, key)).delayMs).toBe(16_667);
  });

  it('grants a wait of exactly maxWaitMs and refuses one millisecond less (golang/go#54541)', async () => {
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter<'async'>({ capacity: 1, refillPerSecond: 1, clock, store: stores.get('ioredis') as RedisStore, name: 'go-54541' });
    const key = `go${run++}`;
    await reserve(limiter, key);
    await expect(wait(limiter, key, 1, { maxWaitMs: 999 })).rejects.toMatchObject({ reason: 'too-long', decision: { retryAfterMs: 1000 } });
    expect(await reserve(limiter, key, 1, { maxWaitMs: 1000 })).toMatchObject({ ok: true, delayMs: 1000 });
  });
});

describeRedis('wait on Redis', () => {
  it('resolves at the booked instant, not a millisecond before', async () => {
    const store = stores.get('ioredis') as RedisStore;
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter<'async'>({ capacity: 1, refillPerSecond: 0.5, clock, store, name: 'wait-at' });
    const key = `wait${run++}`;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    await expect(wait(limiter, key)).resolves.toMatchObject({ allowed: true, remaining: 0 });
    const base = vi.getTimerCount(); // the store's own timer, armed once
    let done = false;
    const waiting = wait(limiter, key).then((d) => ((done = true), d));
    while (vi.getTimerCount() === base) await new Promise(setImmediate); // Redis answered: the wait's timer is set
    await vi.advanceTimersByTimeAsync(1999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
    await expect(waiting).resolves.toMatchObject({ allowed: true, remaining: 0 });
  });

  it('on abort stops waiting, rejects and gives the units back', async () => {
    const store = stores.get('node-redis') as RedisStore;
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter<'async'>({ capacity: 1, refillPerSecond: 1, clock, store, name: 'wait-abort' });
    const key = `abort${run++}`;
    await reserve(limiter, key);
    const controller = new AbortController();
    const waiting = wait(limiter, key, 1, { signal: controller.signal });
    const settled = waiting.catch((e: unknown) => e);
    controller.abort();
    expect(await settled).toMatchObject({ name: 'WaitError', reason: 'aborted' });
    expect((await reserve(limiter, key)).delayMs).toBe(1000); // the aborted booking was cancelled
  });

  it('books on the server clock by default: the delay is the server-side wait', async () => {
    const store = new RedisStore({ client: ioredis(server.port) });
    const limiter = new TokenBucketLimiter<'async'>({ capacity: 1, refillPerSecond: 0.5, store, name: 'server-wait' });
    const key = `server${run++}`;
    expect((await reserve(limiter, key)).delayMs).toBe(0);
    const second = await reserve(limiter, key);
    expect(second.ok).toBe(true);
    expect(second.delayMs).toBeGreaterThan(1000);
    expect(second.delayMs).toBeLessThanOrEqual(2000);
    expect(await second.cancel()).toBe(true);
  });
});

describeRedis("the adapters' delay mode on Redis", () => {
  type Req = { readonly socket: EventEmitter & { destroyed: boolean } };
  const request = (): Req => ({ socket: Object.assign(new EventEmitter(), { destroyed: false }) });
  const leave = (req: Req) => {
    req.socket.destroyed = true;
    req.socket.emit('close');
  };

  it('holds a request until it fits and, when its client leaves, puts the keys back byte for byte', async () => {
    const store = stores.get('ioredis') as RedisStore;
    const clock = new ManualClock(T0);
    const limiter = new TokenBucketLimiter<'async'>({ capacity: 1, refillPerSecond: 1, clock, store, name: 'delay-mode' });
    const key = `delay${run++}`;
    const plan = prepareRateLimit<Req>('rateLimit', { limiter, key: () => key, mode: 'delay' }, [], { gone: (r) => r.socket.destroyed, socket: (r) => r.socket });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    await expect(plan.decide(request(), undefined)).resolves.toMatchObject({ allowed: true });
    const state = storageKey('rk:', 'delay-mode', key);
    const spent = await Promise.all([raw(state), raw(`${state}:r`)]);
    // Gone while held: the booking is cancelled.
    const base = vi.getTimerCount();
    const held = request();
    const outcome = plan.decide(held, undefined) as Promise<Decided>;
    while (vi.getTimerCount() === base) await new Promise(setImmediate);
    leave(held);
    await expect(outcome).resolves.toBeNull();
    // Gone before Redis even answered: released too.
    const early = request();
    const second = plan.decide(early, undefined) as Promise<Decided>;
    leave(early);
    await expect(second).resolves.toBeNull();
    const after = await Promise.all([raw(state), raw(`${state}:r`)]);
    expect(after.map((k) => k.value)).toEqual(spent.map((k) => k.value));
    // And one that stays goes at its instant with the decision of that moment.
    const stays = plan.decide(request(), undefined) as Promise<Decided>;
    while (vi.getTimerCount() === base) await new Promise(setImmediate);
    await vi.advanceTimersByTimeAsync(1000);
    await expect(stays).resolves.toMatchObject({ allowed: true, remaining: 0 });
  });
});

describeRedis('a store that cannot answer books nothing', () => {
  it('refuses the reservation (failure closed), rejects wait as unavailable and reports it', async () => {
    const dead = ioredis(await freePort(), { enableOfflineQueue: false });
    const store = new RedisStore({ client: dead, timeoutMs: 50 });
    const events: FailureInfo[] = [];
    store.on('failure', (info) => events.push(info));
    const limiter = new TokenBucketLimiter<'async'>({ capacity: 1, refillPerSecond: 1, store, name: 'dead' });
    const r = await reserve(limiter, 'k');
    expect(r).toMatchObject({ ok: false, delayMs: Infinity, decision: { allowed: false, failure: 'closed' } });
    expect(await r.cancel()).toBe(false);
    const error = await wait(limiter, 'k').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitError);
    expect(error).toMatchObject({ reason: 'unavailable', message: 'wait: the store could not book the request (its failure event says why)' });
    expect(events.map((e) => [e.operation, e.policy])).toEqual([
      ['reserve', 'dead'],
      ['reserve', 'dead'],
    ]);
  });
});
