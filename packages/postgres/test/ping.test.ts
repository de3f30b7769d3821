/**
 * The batcher's ping, with a database that is alive but whose first ping is stuck on a dead
 * connection (a connection dropped without a reset: no answer, no error, ever) while a batch waits for
 * a row lock that another session holds. The ping must keep asking on other connections, so the
 * database that answers them is waited for: the breaker stays closed for 9 × timeoutMs and the batch
 * is still waiting. A build that sends one ping at a time ('one-ping') stops asking after the stuck
 * one and judges the live database stopped (the breaker opens within a few timeoutMs).
 *
 * No server here: the Db is a stand-in whose every answer the test controls, and time is vitest's
 * fake clock (timers, setImmediate and performance.now), so the run is exact and instant.
 */
import { Remote } from '@ratekeeper/core/store';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
type BatcherModule = typeof import('../src/wire/batcher.js');
import type { Op } from '../src/rows/apply.js';
import type { Db, Row } from '../src/wire/client.js';
import { failureOf } from '../src/wire/failure.js';
import { fixedWindow } from '@ratekeeper/core';
import { mutantBuild } from './support/mutant-builds.js';

const TIMEOUT_MS = 100;
const never = new Promise<never>(() => {});

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'performance'] });
});

afterEach(() => {
  vi.useRealTimers();
});

/** stuckFirstPing: a live database whose first ping never answers, and whose row lock is never granted. */
function stuckFirstPing(): { db: Db; pings: () => number } {
  let pings = 0;
  const db: Db = {
    kind: 'pg',
    onAnswer: () => {},
    rerun: (query) => query(),
    query: (text: string): Promise<Row[]> => {
      if (text === 'SELECT 1') return ++pings === 1 ? never : Promise.resolve([{ '?column?': '1' }]);
      return Promise.resolve([{ now: String(Date.now()) }]); // the server's clock
    },
    session: () => Promise.resolve({ query: () => never, release: () => {} }),
  };
  return { db, pings: () => pings };
}

/**
 * breakerOpens sends one consume through a Batcher of `Made` over `db` and answers whether the breaker
 * opened within 9 × timeoutMs (at 10 × a call is failed however alive the database: MAX_WAIT_FACTOR).
 */
async function breakerOpens({ Batcher, expiredAt }: BatcherModule, db: Db): Promise<boolean> {
  const remote = new Remote({ timeoutMs: TIMEOUT_MS, probeIntervalMs: 200, failureOf, expiredAt });
  const ctx = { db, table: 't', clientTime: false, giveUpMs: 1e9, ready: () => Promise.resolve(), committed: () => {}, alive: () => {} };
  const batcher = new Batcher(remote, ctx, TIMEOUT_MS);
  const policy = { algorithm: 'fixed-window', name: 'p', limit: 1, windowMs: 1000 } as const;
  const op: Op = { kind: 'decide', parts: [{ algorithm: fixedWindow as never, policy: policy as never, row: '00' }], now: 0, cost: 1, commit: true };
  let answered = false;
  batcher.add(op, () => {
    answered = true;
  });
  for (let t = 0; t < 9 * TIMEOUT_MS; t += 5) {
    await vi.advanceTimersByTimeAsync(5);
    if (remote.down) return true;
  }
  expect(answered, 'the batch still waits for its lock').toBe(false);
  return false;
}

it('keeps asking past a ping stuck on a dead connection: the live database is waited for', async () => {
  const stand = stuckFirstPing();
  expect(await breakerOpens(await import('../src/wire/batcher.js'), stand.db)).toBe(false);
  expect(stand.pings(), 'pings went on after the stuck one').toBeGreaterThan(10);
});

it('catches one ping at a time (mutant one-ping): the stuck ping stops the asking and the breaker opens', async () => {
  const url = new URL('./wire/batcher.js', mutantBuild('one-ping')).href;
  const stand = stuckFirstPing();
  expect(await breakerOpens((await import(url)) as BatcherModule, stand.db)).toBe(true);
  expect(stand.pings()).toBe(1);
});
