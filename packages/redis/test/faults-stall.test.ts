/**
 * A hung Redis: SIGSTOP for 2 s under steady load (200 requests/s per store over 50 keys), then
 * SIGCONT. One store per failure policy and client, each with its DEFAULT options (timeoutMs 1,000,
 * the same stores the 8-process burst must find exact), runs through the same stall. Every decision
 * must arrive within timeoutMs + 100 ms (the documented bound: timeoutMs after Redis's last answer, less
 * the time the process itself stood still); every decision that could not have come from Redis must carry its store's
 * policy; the 'failure' events must count exactly the decisions so marked; the fallback must enforce
 * its own limit exactly during the stall; and from 1 s after SIGCONT on every decision must come from
 * Redis again. The naive mutant (no timeout) runs in the same stall and must break the bound.
 *
 * No decision is taken twice: a ledger limiter per client counts every request in Redis (one fixed
 * window, limit 10^9); once Redis has resumed and worked through its queue, its count must equal the
 * number of decisions that came from Redis, although the requests sent during the stall were decided
 * locally and their scripts then reached Redis — give or take the requests already sent when Redis
 * stopped (a script run just before SIGSTOP whose reply was never written is counted by Redis and
 * decided locally: no deadline can close that window, and it can hold only those). The mutant whose
 * scripts ignore their deadline (test/mutants/no-deadline-client.ts) must count more than that.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { type Decision, FixedWindowLimiter, TokenBucketLimiter } from '@ratekeeper/core';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEFAULT_TIMEOUT_MS, type FailureInfo, type FailurePolicy, RedisStore, type RedisStoreOptions, storageKey } from '../src/index.js';
import { NaiveStore } from './mutants/naive-store.js';
import { noDeadlineClient } from './mutants/no-deadline-client.js';
import { CLIENT_KINDS, client, closeAll, ioredis } from './support/clients.js';
import { Load, type Sample, type Target } from './support/load.js';
import { type RedisServer, startServer, waitFor } from './support/redis-server.js';
import { report } from './support/report.js';
import { describeRedis } from './support/requirements.js';
import { readState } from './support/state.js';
import { immortalKeys } from './support/ttl.js';

const TIMEOUT_MS = DEFAULT_TIMEOUT_MS;
const BOUND_MS = TIMEOUT_MS + 100;
const LEDGERS = ['ledger/ioredis', 'ledger/node-redis'] as const;
const QUIET_LEDGERS = ['quiet/ioredis', 'quiet/no-deadline'] as const;
const QUIET_CALLS = 20;
const STALL_MS = 2000;
const POLICIES: readonly FailurePolicy[] = ['fallback', 'open', 'closed'];

let server: RedisServer;
const events = new Map<string, FailureInfo[]>();
const targets: Target[] = [];
let exactDuringStall: { admitted: number; failures: (string | undefined)[] } | undefined;
let exactLimiter: FixedWindowLimiter<'async'>;
const quietLedgers = new Map<string, FixedWindowLimiter<'async'>>();
const quietDecisions = new Map<string, Decision[]>();
let load: Load;
let stoppedAt = 0;
let continuedAt = 0;

beforeAll(async () => {
  server = await startServer();
  for (const kind of CLIENT_KINDS) {
    const c = await client(kind, server.port);
    for (const onFailure of POLICIES) {
      const name = `${onFailure}/${kind}`;
      const store = new RedisStore({ client: c, onFailure, prefix: `rk:${onFailure}:` });
      events.set(name, []);
      store.on('failure', (info) => events.get(name)?.push(info));
      const limiter = new TokenBucketLimiter({ capacity: 1000, refillPerSecond: 100, store });
      targets.push({ name, consume: (key) => limiter.consume(key) });
      if (onFailure === 'fallback' && kind === 'ioredis') exactLimiter = new FixedWindowLimiter({ limit: 5, windowMs: 3_600_000, store });
    }
  }
  for (const name of LEDGERS) {
    const kind = name === 'ledger/node-redis' ? 'node-redis' : 'ioredis';
    const c = await client(kind, server.port);
    const ledger = ledgerOn(c, name);
    targets.push({ name, consume: () => ledger.consume('all') });
  }
  for (const name of QUIET_LEDGERS) {
    const c = await client('ioredis', server.port);
    const ledger = ledgerOn(name === 'quiet/no-deadline' ? noDeadlineClient(c as Redis) : c, name);
    // Warm: the store learns the server's clock, so its deadlines are real ones.
    await ledger.peek('all');
    quietLedgers.set(name, ledger);
  }
  const naive = new TokenBucketLimiter({ capacity: 1000, refillPerSecond: 100, store: new NaiveStore(ioredis(server.port), 'rk:naive:') });
  targets.push({ name: 'naive', consume: (key) => naive.consume(key) });
  await runStall();
});

/** ledgerOn is a limiter counting every request in Redis, on a store of default options. */
function ledgerOn(c: RedisStoreOptions['client'], name: string): FixedWindowLimiter<'async'> {
  const store = new RedisStore({ client: c, prefix: `rk:${name}:` });
  store.on('failure', () => {});
  return new FixedWindowLimiter({ limit: 1e9, windowMs: 1e12, store, name: 'ledger' });
}

/** askQuiet makes QUIET_CALLS decisions on a quiet ledger, each in a turn of its own. */
async function askQuiet(ledger: FixedWindowLimiter<'async'>): Promise<Decision[]> {
  const pending: Promise<Decision>[] = [];
  for (let i = 0; i < QUIET_CALLS; i++) {
    pending.push(ledger.consume('all'));
    await nextTurn();
  }
  return Promise.all(pending);
}

afterAll(async () => {
  await load?.stop();
  await closeAll();
  await server?.stop();
});

async function runStall(): Promise<void> {
  load = new Load(targets);
  load.start();
  await waitFor('warm load', () => load.samples('naive').filter((s) => s.end < Infinity).length >= 40);
  server.pause();
  stoppedAt = performance.now();
  const quiet = Promise.all(QUIET_LEDGERS.map(async (name) => quietDecisions.set(name, await askQuiet(quietLedgers.get(name) as FixedWindowLimiter<'async'>))));
  await waitFor('the store to notice the stall', () => load.samples('fallback/ioredis').some((s) => s.decision?.failure !== undefined));
  const decisions = await Promise.all(Array.from({ length: 20 }, () => exactLimiter.consume('exact')));
  exactDuringStall = { admitted: decisions.filter((d) => d.allowed).length, failures: decisions.map((d) => d.failure) };
  await waitFor('the end of the stall', () => performance.now() - stoppedAt >= STALL_MS, STALL_MS + 1000);
  server.resume();
  continuedAt = performance.now();
  await waitFor('1.3 s of load after SIGCONT', () => performance.now() - continuedAt >= 1300, 3000);
  await load.stop();
  await quiet;
}

/** Samples issued while Redis could not possibly have answered them in time. */
function duringStall(samples: readonly Sample[]): Sample[] {
  return samples.filter((s) => s.start >= stoppedAt && s.start + TIMEOUT_MS < continuedAt);
}

describeRedis('Redis stopped (SIGSTOP) for 2 s under load', () => {
  for (const onFailure of POLICIES) {
    for (const kind of CLIENT_KINDS) {
      const name = `${onFailure}/${kind}`;
      it(`answers every ${name} decision within ${BOUND_MS} ms`, () => {
        const samples = load.samples(name);
        expect(samples.length).toBeGreaterThan(500);
        expect(samples.filter((s) => s.rejected !== undefined)).toEqual([]);
        report(
          'stall',
          name,
          'slowest store latency',
          load.slowestStore(name).toFixed(1),
          'raw',
          Math.max(...samples.map((s) => s.end - s.start)).toFixed(1),
          'worst loop stall',
          load.lag.worst.toFixed(1),
        );
        expect(load.slowestStore(name)).toBeLessThanOrEqual(BOUND_MS);
      });

      it(`decides by '${onFailure}' during the stall and reports each such decision (${kind})`, () => {
        const samples = load.samples(name);
        const stalled = duringStall(samples);
        expect(stalled.length).toBeGreaterThan(100);
        expect(stalled.filter((s) => s.decision?.failure !== onFailure)).toEqual([]);
        const marked = samples.filter((s) => s.decision?.failure !== undefined);
        expect(marked.filter((s) => s.decision?.failure !== onFailure)).toEqual([]);
        const loadEvents = events.get(name)?.filter((info) => info.policy === 'tb-1000-100');
        expect(loadEvents?.length).toBe(marked.length);
        if (onFailure === 'open') expect(stalled.every((s) => s.decision?.allowed)).toBe(true);
        if (onFailure === 'closed') expect(stalled.every((s) => !s.decision?.allowed && s.decision?.retryAfterMs === 1000)).toBe(true);
      });

      it(`decides on Redis again from 1 s after SIGCONT (${name})`, () => {
        const after = load.samples(name).filter((s) => s.start >= continuedAt + 1000);
        expect(after.length).toBeGreaterThan(20);
        expect(after.filter((s) => s.decision?.failure !== undefined)).toEqual([]);
      });
    }
  }

  for (const name of LEDGERS) {
    it(`never lets Redis count a request decided locally (${name})`, async () => {
      const samples = load.samples(name);
      const byRedis = samples.filter((s) => s.decision !== undefined && s.decision.failure === undefined).length;
      const local = samples.filter((s) => s.decision?.failure !== undefined).length;
      expect(local).toBeGreaterThan(100);
      // The one window no deadline closes: a script Redis ran just before SIGSTOP whose reply it had
      // not yet written. Its caller decides locally once the deadline has certainly passed, and Redis
      // has counted it too. Only a request already sent when Redis stopped can be in that window.
      const inFlightAtStop = samples.filter((s) => s.start <= stoppedAt && s.decision?.failure !== undefined).length;
      const [, counted] = (await readState(ioredis(server.port), storageKey(`rk:${name}:`, 'ledger', 'all'))) ?? [];
      report('stall', name, 'decided by Redis', byRedis, 'counted by Redis', counted, 'decided locally', local, 'in flight at the stop', inFlightAtStop);
      expect(counted).toBeGreaterThanOrEqual(byRedis);
      expect((counted as number) - byRedis).toBeLessThanOrEqual(inFlightAtStop);
    });
  }

  for (const name of QUIET_LEDGERS) {
    const mutant = name === 'quiet/no-deadline';
    it(
      mutant
        ? 'catches the mutant whose scripts ignore their deadline deciding requests twice'
        : 'counts in Redis exactly the requests Redis decided, of a store quiet at the stop',
      async () => {
        const decisions = quietDecisions.get(name) ?? [];
        expect(decisions).toHaveLength(QUIET_CALLS);
        const byRedis = decisions.filter((d) => d.failure === undefined).length;
        expect(QUIET_CALLS - byRedis).toBeGreaterThan(0);
        const [, counted = 0] = (await readState(ioredis(server.port), storageKey(`rk:${name}:`, 'ledger', 'all'))) ?? [];
        report('stall', name, 'decided by Redis', byRedis, 'counted by Redis', counted, 'decided locally', QUIET_CALLS - byRedis);
        if (mutant) expect(counted).toBeGreaterThan(byRedis);
        else expect(counted).toBe(byRedis);
      },
    );
  }

  it('enforces the fallback limit exactly during the stall: 5 of 20', () => {
    expect(exactDuringStall).toEqual({ admitted: 5, failures: Array(20).fill('fallback') });
  });

  it('reports timeouts and unavailability, never an error text, for the stall', () => {
    const reasons = new Set([...events.values()].flat().map((i) => i.reason));
    expect([...reasons].sort()).toEqual(['timeout', 'unavailable']);
  });

  it('catches the naive mutant holding requests through the stall', () => {
    expect(load.slowestStore('naive')).toBeGreaterThan(STALL_MS / 2);
  });

  it('leaves no key without a TTL', async () => {
    expect(await immortalKeys(ioredis(server.port))).toEqual([]);
  });
});
