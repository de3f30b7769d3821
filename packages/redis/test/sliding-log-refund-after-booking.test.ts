/**
 * Regression: a refund after a sliding-log booking freed units still inside the window. The Lua log
 * kept only the units inside the window at the instant a step decided at; a booking decides ahead of
 * now (when its units leave), so its write dropped every unit older than that instant's window. A
 * refund that then took the booked unit back returned the key's clock to now, where the dropped units
 * were inside the window again: Redis found the log empty and admitted up to L more within one window,
 * where the memory store (the ring of the last L units) admits only what is left. Found by the store
 * contract's booking histories once they ran at full length.
 *
 * The table is at fixed instants (client time) on a real redis-server, against the memory store's
 * figures; the log trimmed as before (mutant WINDOW_TRIMMED_LOG) must fail it.
 */
import { ManualClock, MemoryStore, type RateLimiter, reserve, SlidingLogLimiter, type Store } from '@ratekeeper/core';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RedisStore } from '../src/index.js';
import { WINDOW_TRIMMED_LOG, rewrittenScripts } from './mutants/rewritten-scripts-client.js';
import { closeAll, ioredis } from './support/clients.js';
import { type RedisServer, startServer } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';

const T0 = 1_577_836_800_000;
const W = 60_000;

let server: RedisServer;
let redis: Redis;

beforeAll(async () => {
  server = await startServer();
  redis = ioredis(server.port);
});

afterAll(async () => {
  await closeAll();
  await server?.stop();
});

type Row = { at: number; op: 'reserve' | 'refund' | 'consume'; cost: number; maxWaitMs?: number };

/** The history: six units at T0, a booking that waits for them to leave, its unit given back, then two asks. */
const HISTORY: readonly Row[] = [
  { at: T0, op: 'consume', cost: 6 },
  { at: T0 + 1, op: 'reserve', cost: 1 },
  { at: T0 + 2, op: 'refund', cost: 1 },
  { at: T0 + 3, op: 'reserve', cost: 1, maxWaitMs: 0 },
  { at: T0 + 4, op: 'consume', cost: 1 },
];

/** replay answers, per row, the figures a client sees: [allowed or booked, remaining, wait]. */
async function replay(store: Store, name: string): Promise<(readonly [boolean, number, number])[]> {
  const clock = new ManualClock(T0);
  const limiter = new SlidingLogLimiter({ store, clock, limit: 6, windowMs: W, name }) as RateLimiter;
  const seen: (readonly [boolean, number, number])[] = [];
  for (const row of HISTORY) {
    clock.set(row.at);
    if (row.op === 'refund') {
      await limiter.refund?.('k', row.cost);
      continue;
    }
    if (row.op === 'consume') {
      const d = await limiter.consume('k', row.cost);
      seen.push([d.allowed, d.remaining, d.retryAfterMs]);
      continue;
    }
    const r = await reserve(limiter as never, 'k', row.cost, row.maxWaitMs === undefined ? {} : { maxWaitMs: row.maxWaitMs });
    seen.push([r.ok, r.decision.remaining, r.ok ? r.delayMs : r.decision.retryAfterMs]);
  }
  return seen;
}

const redisStore = (client: unknown) => new RedisStore({ client: client as Redis, time: 'client', timeoutMs: 5_000, onFailure: 'closed', denyCache: false });

describeRedis('a refund after a sliding-log booking', () => {
  it('leaves the units still inside the window counted, as the memory store does', async () => {
    const want = await replay(new MemoryStore(), 'sl-refund-memory');
    // Six at T0; the booking waits until they leave (T0 + W); its unit given back, five of the six are
    // still inside the window: a booking that may not wait is refused, one more unit is admitted.
    expect(want).toEqual([
      [true, 0, 0],
      [true, 5, W - 1],
      [false, 0, W - 3],
      [true, 0, 0],
    ]);
    expect(await replay(redisStore(redis), 'sl-refund-redis')).toEqual(want);
  });

  it('catches a log trimmed to the window at the booked instant (mutant window-trimmed-log)', async () => {
    const want = await replay(new MemoryStore(), 'sl-refund-memory-2');
    const got = await replay(redisStore(rewrittenScripts(redis, WINDOW_TRIMMED_LOG)), 'sl-refund-mutant');
    expect(got).not.toEqual(want);
    // The trimmed log forgot the five units: the last consume leaves five more to take within the window.
    expect(got[3]).toEqual([true, 5, 0]);
  });
});
