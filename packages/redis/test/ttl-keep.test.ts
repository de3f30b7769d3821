/**
 * TTL-keep (issue 18, the owner's rule): a key's TTL is a memory bound, not a decision contract, so an
 * admission may keep the key's TTL instead of writing it again while it still covers the state
 * (`untail` and `put` in src/lua/prelude.ts). What must hold, on default options (server time,
 * Functions, batching, deny cache), for every algorithm, on one call, on a burst of distinct keys (the
 * batch script, every key once), on a burst on one key (the batch script holding the key) and on a
 * composite:
 *   - never short: after every admission the key expires no sooner than its state is empty:
 *     PEXPIRETIME ≥ TIME read before the call + the last admission's resetAfterMs;
 *   - bounded: and no later than TIME after the call + that + max(900 ms, 20 % of the largest TTL the
 *     key was written with) + 2 ms (Redis dates a script's writes within a millisecond of its TIME);
 *   - kept: an admission whose state the recorded expiry still covers leaves PEXPIRETIME as it was,
 *     and one it does not cover moves it.
 * Two mutants rewrite `put` on the way to Redis: one that keeps whatever the expiry (caught short) and
 * one that never keeps (caught by the kept check).
 */
import { CompositeLimiter, type Decision, FixedWindowLimiter, SlidingLogLimiter, SlidingWindowLimiter, TokenBucketLimiter } from '@ratekeeper/core';
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RedisStore, storageKey } from '../src/index.js';
import { rewrittenScripts } from './mutants/rewritten-scripts-client.js';
import { closeAll, ioredis } from './support/clients.js';
import { type RedisServer, startServer } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';
import { recordedExpiry } from './support/state.js';
import { immortalKeys } from './support/ttl.js';

/** Limiting: a limiter a composite takes. */
type Limiting = ConstructorParameters<typeof CompositeLimiter>[0][number];

const PUT_CHECK = 'if expiry and server + ms <= expiry then';
const KEEP_ALWAYS = (source: string) => rewrite(source, PUT_CHECK, 'if expiry then');
const NEVER_KEEP = (source: string) => rewrite(source, PUT_CHECK, 'if false then');

function rewrite(source: string, from: string, to: string): string {
  if (!source.includes(from)) return source;
  return source.replace(from, to);
}

let server: RedisServer;
let redis: Redis;
let runs = 0;

const ms = async () => {
  const [s, us] = await redis.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
};

/** Policy: how to build one limiter (or a composite of two) on a store, with the names of its keys. */
interface Policy {
  readonly label: string;
  build(store: RedisStore, name: string): Limiting;
}

const POLICIES = {
  tb: (capacity: number, refillPerSecond: number): Policy => ({
    label: `tb ${capacity}@${refillPerSecond}/s`,
    build: (store, name) => new TokenBucketLimiter({ capacity, refillPerSecond, store, name }),
  }),
  sw: (limit: number, windowMs: number): Policy => ({
    label: `sw ${limit}/${windowMs}`,
    build: (store, name) => new SlidingWindowLimiter({ limit, windowMs, store, name }),
  }),
  fw: (limit: number, windowMs: number): Policy => ({
    label: `fw ${limit}/${windowMs}`,
    build: (store, name) => new FixedWindowLimiter({ limit, windowMs, store, name }),
  }),
  sl: (limit: number, windowMs: number): Policy => ({
    label: `sl ${limit}/${windowMs}`,
    build: (store, name) => new SlidingLogLimiter({ limit, windowMs, store, name }),
  }),
};

const policy = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 20 }), fc.constantFrom(0.5, 1, 2, 10, 50)).map(([c, r]) => POLICIES.tb(c, r)),
  fc.tuple(fc.integer({ min: 1, max: 12 }), fc.constantFrom(500, 2000, 10_000, 60_000)).map(([l, w]) => POLICIES.sw(l, w)),
  fc.tuple(fc.integer({ min: 1, max: 12 }), fc.constantFrom(500, 2000, 10_000, 60_000)).map(([l, w]) => POLICIES.fw(l, w)),
  fc.tuple(fc.integer({ min: 1, max: 12 }), fc.constantFrom(500, 2000, 10_000, 60_000)).map(([l, w]) => POLICIES.sl(l, w)),
);

type Path = 'one call' | 'distinct burst' | 'hot burst';
/** BURST: more calls than go alone on a quiet store (SOLO_BELOW), so the rest go as one batch. */
const BURST = 24;

/** Watch keeps, per key, the largest TTL an admission asked (the TTL the key may have been written with). */
class Watch {
  readonly violations: string[] = [];
  private readonly largest = new Map<string, number>();

  async check(key: string, decision: Decision, before: number, after: number, what: string): Promise<void> {
    const reset = Math.ceil(decision.resetAfterMs);
    const largest = Math.max(this.largest.get(key) ?? 0, reset);
    this.largest.set(key, largest);
    const expires = await redis.pexpiretime(key);
    if (expires < before + reset) this.violations.push(`${what}: ${key} expires at ${expires}, before its state is empty (${before} + ${reset})`);
    const bound = after + reset + Math.max(900, Math.floor(largest / 5)) + 2;
    if (expires > bound) this.violations.push(`${what}: ${key} expires at ${expires}, past ${bound}`);
  }
}

/**
 * run drives one history on a fresh store (through `wire`) and answers every violation of the bounds:
 * `steps` are rounds of (cost, count), each checked after it settles: `count` calls one after another
 * on the one-call path, one burst of BURST calls at that cost on the others.
 */
async function run(wire: Redis, p: Policy, path: Path, steps: readonly (readonly [number, number])[], composite: boolean): Promise<string[]> {
  const prefix = `keep${runs}:`;
  const name = `n${runs++}`;
  const store = new RedisStore({ client: wire, prefix });
  const one = p.build(store, name);
  const limiter = composite ? new CompositeLimiter([one, POLICIES.fw(1000, 60_000).build(store, `${name}w`)]) : one;
  const members = composite ? [name, `${name}w`] : [name];
  const watch = new Watch();
  for (const [cost, count] of steps) {
    // The key of each call, in call order.
    const keys = path === 'one call' ? Array.from({ length: count }, () => 'solo') : Array.from({ length: BURST }, (_, i) => (path === 'hot burst' ? 'hot' : `k${i}`));
    const before = await ms();
    const decisions: Decision[] = [];
    if (path === 'one call') for (const key of keys) decisions.push(await limiter.consume(key, cost));
    else decisions.push(...(await Promise.all(keys.map((key) => limiter.consume(key, cost)))));
    const after = await ms();
    // The decision whose state each key holds: its last admission, in call order.
    const held = new Map<string, Decision>();
    decisions.forEach((d, i) => d.allowed && held.set(keys[i] as string, d));
    for (const [key, last] of held) {
      const parts = last.parts ?? [last];
      for (const [j, member] of members.entries()) {
        await watch.check(storageKey(prefix, member, key), parts[j] as Decision, before, after, `${p.label}${composite ? ' + fw' : ''} ${path}`);
      }
    }
  }
  return watch.violations;
}

const steps = fc.array(fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 4 })), { minLength: 1, maxLength: 6 });

describeRedis('TTL-keep: a key outlives its state by a bounded margin, and keeps its TTL while that covers it', () => {
  beforeAll(async () => {
    server = await startServer();
    redis = ioredis(server.port);
  });

  afterAll(async () => {
    await closeAll();
    await server?.stop();
  });

  for (const path of ['one call', 'distinct burst', 'hot burst'] as const) {
    for (const composite of [false, true]) {
      it(`never expires a key before its state is empty, nor long after: ${path}${composite ? ', composite' : ''}`, async () => {
        await fc.assert(
          fc.asyncProperty(policy, steps, async (p, s) => {
            expect(await run(redis, p, path, s, composite)).toEqual([]);
          }),
          { numRuns: path === 'one call' ? 25 : 8 },
        );
      });
    }
  }

  it('catches a put that keeps the TTL whatever the recorded expiry (the key expires before its state is empty)', async () => {
    const wire = rewrittenScripts(redis as never, KEEP_ALWAYS) as never;
    for (const path of ['one call', 'hot burst', 'distinct burst'] as const) {
      const violations = await run(
        wire,
        POLICIES.tb(10, 1),
        path,
        [
          [1, 3],
          [1, 1],
          [1, 1],
        ],
        false,
      );
      expect(
        violations.some((v) => v.includes('before its state is empty')),
        path,
      ).toBe(true);
    }
  });

  /**
   * expiries: PEXPIRETIME of a bucket key (1,000 tokens at 100 a second, so each admission moves the
   * moment it is full again by 10 ms) after one admission, after a second, and after a burst of BURST
   * on it (the calls that go alone, then the batch that holds the key): 10, 20 and 260 ms of state,
   * each covered by the first write's 0.9 s margin.
   */
  async function expiries(wire: Redis, prefix: string): Promise<number[]> {
    const bucket = new TokenBucketLimiter({ capacity: 1000, refillPerSecond: 100, store: new RedisStore({ client: wire, prefix }), name: 'b' });
    const key = storageKey(prefix, 'b', 'x');
    const seen: number[] = [];
    await bucket.consume('x');
    seen.push(await redis.pexpiretime(key));
    await bucket.consume('x');
    seen.push(await redis.pexpiretime(key));
    await Promise.all(Array.from({ length: BURST }, () => bucket.consume('x')));
    seen.push(await redis.pexpiretime(key));
    return seen;
  }

  it('keeps the TTL while the recorded expiry covers the state, and writes it again once it does not', async () => {
    const [first, second, burst] = await expiries(redis, 'kept:');
    expect([second, burst]).toEqual([first, first]);
    expect(await recordedExpiry(redis, storageKey('kept:', 'b', 'x'))).toBeLessThan(first as number);
    expect(await recordedExpiry(redis, storageKey('kept:', 'b', 'x'))).toBeGreaterThanOrEqual((first as number) - 2);
    // One token a second: the second admission's state is full again a second on, past the 0.9 s the
    // first TTL outlived the first state by: written again.
    const slow = new TokenBucketLimiter({ capacity: 10, refillPerSecond: 1, store: new RedisStore({ client: redis, prefix: 'kept:' }), name: 's' });
    await slow.consume('x');
    const before = await redis.pexpiretime(storageKey('kept:', 's', 'x'));
    await slow.consume('x');
    expect(await redis.pexpiretime(storageKey('kept:', 's', 'x'))).toBeGreaterThan(before);
  });

  it('catches a put that never keeps', async () => {
    const [first, second, burst] = await expiries(rewrittenScripts(redis as never, NEVER_KEEP) as never, 'never:');
    expect(second).not.toBe(first);
    expect(burst).not.toBe(first);
  });

  it('reads a state written before TTL-keep (no tail) and one whose recorded expiry has passed, and gives each a TTL again', async () => {
    const store = new RedisStore({ client: redis, prefix: 'old:' });
    const limiter = new FixedWindowLimiter({ limit: 5, windowMs: 60_000, store, name: 'w' });
    const key = storageKey('old:', 'w', 'x');
    await limiter.consume('x');
    const raw = (await redis.getBuffer(key)) as Buffer;
    // The state alone, as the scripts wrote it before: read as it is, and the next admission records an expiry.
    await redis.set(key, raw.subarray(0, raw.length - 9), 'PX', 60_000);
    expect(await limiter.consume('x')).toMatchObject({ allowed: true, remaining: 3 });
    expect(await recordedExpiry(redis, key)).toBeGreaterThan(await ms());
    // A key that lost its TTL (PERSIST) with an expiry recorded in the past: the next admission writes one.
    const stale = Buffer.from((await redis.getBuffer(key)) as Buffer);
    stale.writeDoubleLE((await ms()) - 1, stale.length - 9);
    await redis.set(key, stale);
    expect(await redis.pttl(key)).toBe(-1);
    expect(await limiter.consume('x')).toMatchObject({ allowed: true, remaining: 2 });
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeGreaterThanOrEqual((await limiter.peek('x')).resetAfterMs);
  });

  it('leaves no key without a TTL', async () => {
    expect(await immortalKeys(redis)).toEqual([]);
  });
});
