/**
 * Concurrency leases on a real redis-server (started by the test): exact under concurrency (4
 * connections × 100 acquires at once on one key: exactly `limit` admitted; a client-side
 * count-then-add acquire over-admits: mutant), releases by id (a process releases only its own
 * leases), the leases of a killed process expiring by themselves after leaseTtlMs on Redis's clock (a
 * holder that writes leases without expiry is caught: mutant), and renewal keeping a long request's
 * lease alive past leaseTtlMs (a store without renewal loses it: mutant). Waits are on Redis's own
 * clock: TIME, with BLPOP timeouts between readings, bounded.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { CompositeLimiter, ConcurrencyLimiter, FixedWindowLimiter } from '@ratekeeper/core';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { RedisStore, type RedisStoreOptions } from '../src/index.js';
import { racyAcquire } from './mutants/racy-acquire.js';
import { unrenewedStore } from './mutants/unrenewed-leases.js';
import { closeAll, ioredis } from './support/clients.js';
import { type RedisServer, startServer } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';

const HOLDER = fileURLToPath(new URL('./support/concurrency-holder.mjs', import.meta.url));
const TTL_MS = 300;
/** Leases of 300 ms need a timeout of at most 100 ms (leaseTtlMs ≥ 3 × timeoutMs: a renewal outlasts a call). */
const TIMEOUT_MS = 100;
let server: RedisServer;
let admin: Redis;
let waiter: Redis;
let runs = 0;
const children: ChildProcess[] = [];

beforeAll(async () => {
  server = await startServer();
  admin = ioredis(server.port);
  waiter = ioredis(server.port);
});

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

afterAll(async () => {
  await closeAll();
  await server?.stop();
});

async function serverNow(): Promise<number> {
  const [seconds, micros] = (await admin.time()) as unknown as [string, string];
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/** untilServerTime waits, on Redis's clock, until its TIME reaches `at` (BLPOP timeouts of 50 ms, at most `bound` of them). */
async function untilServerTime(at: number, bound = 100): Promise<void> {
  for (let i = 0; i < bound; i++) {
    if ((await serverNow()) >= at) return;
    await waiter.blpop('rk-test:never', 0.05);
  }
  throw new Error(`Redis's clock did not reach ${at}`);
}

function inflight(limit: number, name: string, options: Partial<RedisStoreOptions> = {}, make = (o: RedisStoreOptions) => new RedisStore(o)) {
  return new ConcurrencyLimiter({ limit, name, store: make({ client: ioredis(server.port), leaseTtlMs: TTL_MS, timeoutMs: TIMEOUT_MS, ...options }) });
}

describeRedis('concurrency leases on Redis', () => {
  it('admits exactly the limit among 4 connections × 100 concurrent acquires on one key', async () => {
    const name = `exact-${runs++}`;
    const limiters = Array.from({ length: 4 }, () => inflight(37, name));
    const decisions = await Promise.all(limiters.flatMap((l) => Array.from({ length: 100 }, () => l.consume('k'))));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(37);
    expect(decisions.every((d) => d.failure === undefined)).toBe(true);
    expect(await admin.zcard(`rk:${name}:{k}`)).toBe(37);
    await Promise.all(limiters.map((l) => l.release('k', 100)));
    expect(await admin.exists(`rk:${name}:{k}`)).toBe(0);
  });

  it('the same check catches an acquire that counts, then adds, in separate commands (mutant)', async () => {
    const key = `rk:racy-${runs++}:{k}`;
    const clients = Array.from({ length: 4 }, () => ioredis(server.port));
    const admitted = await Promise.all(clients.flatMap((c) => Array.from({ length: 100 }, () => racyAcquire(c, key, 37, TTL_MS))));
    expect(admitted.filter(Boolean).length).toBeGreaterThan(37);
  });

  it('releases only its own leases, by id, never below zero; peek takes none; reset drops all', async () => {
    const name = `own-${runs++}`;
    const [a, b] = [inflight(2, name), inflight(2, name)];
    expect((await a.consume('k')).allowed).toBe(true);
    expect((await a.peek('k')).remaining).toBe(0);
    await b.release('k', 5);
    expect(await b.consume('k')).toMatchObject({ allowed: true, remaining: 0 });
    expect(await b.consume('k')).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 1000, resetAfterMs: 1000 });
    expect(await b.consume('k', 3)).toMatchObject({ allowed: false, retryAfterMs: Infinity });
    await a.release('k');
    expect((await a.consume('k')).allowed).toBe(true);
    await a.reset('k');
    expect(await admin.exists(`rk:${name}:{k}`)).toBe(0);
    await Promise.all([a.release('k'), b.release('k')]);
  });

  /** crashed: a child process takes both leases and is killed; the leases must be free leaseTtlMs later, by Redis's clock. */
  async function crashed(mode: 'renewing' | 'forever') {
    const key = `crash-${runs++}`;
    const child = spawn(process.execPath, [HOLDER, String(server.port), key, '2', String(TTL_MS), mode], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    const [line] = (await once(child.stdout!, 'data')) as [Buffer];
    expect(line.toString()).toBe('held 2\n');
    const other = inflight(2, 'crash');
    expect((await other.consume(key)).allowed, 'admitted while the holder lives').toBe(false);
    child.kill('SIGKILL');
    await once(child, 'exit');
    const killedAt = await serverNow();
    expect((await other.consume(key)).allowed, 'admitted right after the kill').toBe(false);
    await untilServerTime(killedAt + TTL_MS + 1);
    const after = [await other.consume(key), await other.consume(key), await other.consume(key)];
    expect(
      after.map((d) => d.allowed),
      'admitted leaseTtlMs after the kill',
    ).toEqual([true, true, false]);
    await other.release(key, 2);
  }

  it("expires a killed process's leases by themselves after leaseTtlMs, on Redis's clock", async () => {
    await crashed('renewing');
  });

  it('the check catches leases written without an expiry (mutant)', async () => {
    await expect(crashed('forever')).rejects.toThrow(/admitted leaseTtlMs after the kill/);
  });

  /** longRequest holds a lease for three TTLs while another process keeps asking for it. */
  async function longRequest(make?: (o: RedisStoreOptions) => RedisStore) {
    const name = `long-${runs++}`;
    const holder = inflight(1, name, {}, make);
    const other = inflight(1, name);
    const takenAt = await serverNow();
    expect((await holder.consume('k')).allowed).toBe(true);
    await untilServerTime(takenAt + 3 * TTL_MS);
    expect((await other.consume('k')).allowed, 'another request admitted while the long one still runs').toBe(false);
    await holder.release('k');
    expect((await other.consume('k')).allowed).toBe(true);
    await other.release('k');
  }

  it('renews the leases of a long request: still held after three leaseTtlMs, and the timer stops once none is held', async () => {
    await longRequest();
    const limiter = inflight(1, `timer-${runs++}`);
    const binding = limiter.binding as unknown as { renewing: boolean };
    expect(binding.renewing).toBe(false);
    await limiter.consume('k');
    expect(binding.renewing).toBe(true);
    await limiter.release('k');
    expect(binding.renewing).toBe(false);
  });

  it('the check catches a store that never renews (mutant)', async () => {
    await expect(longRequest(unrenewedStore)).rejects.toThrow(/another request admitted while the long one still runs/);
  });

  it('composes with a rate limit all or nothing, and the composite releases the lease only', async () => {
    const store = new RedisStore({ client: ioredis(server.port), leaseTtlMs: TTL_MS, timeoutMs: TIMEOUT_MS });
    const n = runs++;
    const rate = new FixedWindowLimiter({ limit: 3, windowMs: 1e12, name: `rate-${n}`, store });
    const lease = new ConcurrencyLimiter({ limit: 2, name: `lease-${n}`, store });
    const both = new CompositeLimiter([rate, lease]);
    expect((await both.consume('k')).allowed).toBe(true);
    expect((await both.consume('k')).allowed).toBe(true);
    const denied = await both.consume('k');
    expect(denied.allowed).toBe(false);
    expect(denied.parts?.map((p) => `${p.policy.name}:${p.allowed}:${p.remaining}`)).toEqual([`rate-${n}:true:1`, `lease-${n}:false:0`]);
    expect((await rate.peek('k')).allowed, 'the rate spent by a request denied a lease').toBe(true);
    await both.release!('k', 2);
    expect(await admin.exists(`rk:lease-${n}:{k}`)).toBe(0);
    expect((await both.consume('k')).allowed).toBe(true);
    const byRate = await both.consume('k');
    expect(byRate.allowed).toBe(false);
    expect(byRate.parts?.map((p) => `${p.policy.name}:${p.allowed}:${p.remaining}`)).toEqual([`rate-${n}:false:0`, `lease-${n}:true:1`]);
    expect(await admin.zcard(`rk:lease-${n}:{k}`), 'the leases held after a rate denial').toBe(1);
    await both.release!('k');
    expect(await admin.exists(`rk:lease-${n}:{k}`)).toBe(0);
  });

  it('refuses a lease TTL shorter than three timeouts, and bans on a concurrency limit', () => {
    const client = ioredis(server.port);
    expect(() => new RedisStore({ client, leaseTtlMs: 100 })).toThrowError(
      new RangeError('RedisStore: leaseTtlMs must be an integer from 3000 (3 × timeoutMs) to 86400000, got 100'),
    );
    expect(() => new RedisStore({ client, leaseTtlMs: '30s' as never })).toThrowError(TypeError);
    expect(new RedisStore({ client }).leaseTtlMs).toBe(30_000);
  });
});
