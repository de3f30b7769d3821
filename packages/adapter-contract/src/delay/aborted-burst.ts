/**
 * Delay mode gives back the units of requests whose clients leave during a burst, over real HTTP, on
 * the memory store and on Redis: a token bucket of 10 refilled at 1 per second, `mode: 'delay'`;
 * 60 requests arrive, 10 go at once and 50 are booked a second apart. (The bound is raised to 50 s from
 * the default 1 s: on Redis in client time, the ManualClock stands still while each key's TTL runs in
 * real time, so the policy's time scale must outlast the test on a busy machine.) The clients of 30 of the 50 leave while held, each with later bookings behind it. The 20 that
 * stay go at their instants, and a request that follows then gets exactly the units a fresh limiter
 * has after seeing only the 30 requests that really went, at their instants. The stores whose cancel
 * succeeds only for the latest booking (mutants, the rule before) keep all 30 charged, and the same
 * check catches them. Fake timers (setTimeout only) with a ManualClock moved alongside, as in ./delay.ts.
 */
import { type IncomingMessage, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Booking, ManualClock, MemoryStore, type Store, TokenBucketLimiter } from '@ratekeeper/core';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { Driver } from '../driver.js';
import { until } from '../work/login.js';
import { MemoryCancelsLastOnly, RedisCancelsLastOnly } from '../mutants/last-only-cancel.js';
import { STORES, runsOn, stopRedis, storeOn } from '../redis.js';

const T0 = 1_700_000_000_000;
const BURST = 60;
const AT_ONCE = 10;
const STEP_MS = 1000;
const LAST_MS = (BURST - AT_ONCE) * STEP_MS;
/** The held requests (0 to 49, in booking order) whose clients leave: three in every five, 30 in all, never the last. */
const LEAVES = (h: number) => h % 5 < 3;

const bucket = (clock: ManualClock, store: Store) =>
  new TokenBucketLimiter({ capacity: AT_ONCE, refillPerSecond: 1000 / STEP_MS, clock, store: store as MemoryStore, name: 'burst' });

/** watched records every booking the store makes (its delay) and counts the cancels it has answered. */
function watched(store: Store): { delays: number[]; cancelled: () => number } {
  const delays: number[] = [];
  let cancelled = 0;
  const reserveAll = (store.reserveAll as NonNullable<Store['reserveAll']>).bind(store);
  const watch = (b: Booking): Booking => {
    delays.push(b.delayMs);
    return {
      ...b,
      cancel: (now) => {
        const done = b.cancel(now);
        if (done instanceof Promise) return done.finally(() => cancelled++);
        cancelled++;
        return done;
      },
    };
  };
  Object.defineProperty(store, 'reserveAll', {
    value: (...args: Parameters<typeof reserveAll>) => {
      const booked = reserveAll(...args);
      return booked instanceof Promise ? booked.then(watch) : watch(booked);
    },
  });
  return { delays, cancelled: () => cancelled };
}

/** unitsAfter is what a fresh limiter admits in a row at the last booking's instant after only the requests that went, at theirs. */
function unitsAfter(): number {
  const clock = new ManualClock(T0);
  const fresh = bucket(clock, new MemoryStore());
  for (let i = 0; i < AT_ONCE; i++) fresh.consume('k');
  for (let h = 0; h < BURST - AT_ONCE; h++) {
    if (LEAVES(h)) continue;
    clock.set(T0 + STEP_MS * (h + 1));
    fresh.consume('k');
  }
  clock.set(T0 + LAST_MS);
  let units = 0;
  while (fresh.consume('k').allowed) units++;
  return units;
}

/** send starts one request and answers its client and its status once answered. */
function send(port: number): { client: ReturnType<typeof httpRequest>; answered: Promise<number> } {
  const client = httpRequest({ host: '127.0.0.1', port, path: '/' });
  client.on('error', () => {});
  const answered = new Promise<number>((resolve) => client.on('response', (res: IncomingMessage) => (res.resume(), res.on('end', () => resolve(res.statusCode ?? 0)))));
  client.end();
  return { client, answered };
}

/** abortedUnitsComeBack runs the burst on `store` and throws unless a following request gets exactly the units left. */
export async function abortedUnitsComeBack<F>(driver: Driver<F>, store: Store): Promise<void> {
  const seen = watched(store);
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const clock = new ManualClock(T0);
  const served = driver.serve({ limiter: bucket(clock, store), key: () => 'k', mode: 'delay', maxDelayMs: LAST_MS });
  if (!served.server.listening) await new Promise((done) => served.server.once('listening', done));
  const port = (served.server.address() as AddressInfo).port;
  const sent: ReturnType<typeof send>[] = [];
  for (let i = 0; i < BURST; i++) {
    sent.push(send(port));
    await until(() => seen.delays.length === i + 1, `request ${i} to be booked`);
  }
  expect(seen.delays).toEqual([...Array(AT_ONCE).fill(0), ...Array.from({ length: BURST - AT_ONCE }, (_, h) => STEP_MS * (h + 1))]);
  const held = sent.slice(AT_ONCE);
  for (const [h, s] of held.entries()) if (LEAVES(h)) s.client.destroy();
  await until(() => seen.cancelled() === 30, 'the 30 cancels to be answered');
  clock.advance(LAST_MS);
  await vi.advanceTimersByTimeAsync(LAST_MS); // every booking's instant has come: the 20 that stayed go
  const stayed = [...sent.slice(0, AT_ONCE), ...held.filter((_, h) => !LEAVES(h))];
  expect(await Promise.all(stayed.map((s) => s.answered))).toEqual(Array(30).fill(200));
  const want = unitsAfter();
  let got = 0;
  for (;;) {
    const next = send(port);
    await until(() => seen.delays.length === BURST + got + 1, 'a following request to be booked');
    if (seen.delays[seen.delays.length - 1] !== 0 || got > want) {
      next.client.destroy();
      break;
    }
    expect(await next.answered).toBe(200);
    got++;
  }
  if (got !== want) throw new Error(`a following request got ${got} units at once, want ${want}: the units of the 30 requests that left did not all come back`);
}

export function abortedBurstSuite<F>(drivers: readonly Driver<F>[]): void {
  for (const driver of drivers) {
    for (const where of STORES) {
      describe.runIf(runsOn(where))(`${driver.name} on ${where}: mode 'delay', a burst whose clients leave`, () => {
        afterEach(() => {
          vi.useRealTimers();
        });
        afterAll(stopRedis);

        it('gives back the units of the 30 requests that left, exactly: a following request gets the rest', async () => {
          const { store, failures } = await storeOn(where);
          await abortedUnitsComeBack(driver, store);
          expect(failures).toEqual([]);
        });

        it('the same check catches cancels that succeed only for the latest booking (mutant)', async () => {
          const { store } = await storeOn(where, MemoryCancelsLastOnly, RedisCancelsLastOnly);
          await expect(abortedUnitsComeBack(driver, store)).rejects.toThrow(/^a following request got 0 units at once, want 9/);
        });
      });
    }
  }
}
