/**
 * Two example server processes share one limit through one PostgreSQL table: both are started here on
 * free loopback ports against DATABASE_URL (default postgres://root@127.0.0.1:5432/test), on a table
 * no other run uses (dropped at the end), and the test sends them real HTTP.
 *
 * - A client alternating between them gets exactly 10 admitted in total (the RateLimit count going
 *   down across both), then 429s whose Retry-After is the store's own wait: bounded by what a reader
 *   of the same table sees right after (a peek) and by the time the test has measured, no sleeping.
 * - 20 requests sent to each server at once: exactly 10 admitted in total.
 * Neither server may report a store failure (a decision by the fallback) meanwhile.
 *
 * Mutants, each caught by the same checks: servers on a table each (every process keeps its own
 * count, as with an in-process store) admit 10 per process; servers on the package's 'no-lock' build
 * (rows read without the locking upsert) over-admit in the concurrent burst, within a few bursts.
 *
 * The limits are reset between tests by emptying the table. Without PostgreSQL the suite is skipped
 * with a warning, except under CI=true, where it fails.
 */
import { TokenBucketLimiter } from '@ratekeeper/core';
import { PostgresStore } from '@ratekeeper/postgres';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mutantBuild } from '../../packages/postgres/test/support/mutant-builds.ts';
import { startServer, stop } from './processes.mjs';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/test';
const LIMIT = 10;
const INTERVAL_MS = 6_000; // one token every 6 s (app.mjs)
const KEY = '127.0.0.1'; // the Express adapter's key for a client on IPv4 loopback: its address
/** How many concurrent bursts the no-lock mutant gets to over-admit in (it stops at the first that does). */
const NO_LOCK_BURSTS = 10;
/** Tests start processes and wait on a database shared with other work: bounds for a loaded machine, not expected durations. */
const PROCESS_TEST_MS = 30_000;

/** unreachable answers why the database cannot be used, or undefined when it answers. */
async function unreachable() {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return error.message || error.code || String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

const down = await unreachable();
if (down !== undefined && process.env.CI === 'true') throw new Error(`PostgreSQL at ${DATABASE_URL} is not answering (${down}); CI runs the PostgreSQL example against it`);
if (down !== undefined) console.warn(`\n*** PostgreSQL at ${DATABASE_URL} is not answering (${down}): the PostgreSQL example test is SKIPPED ***\n`);

/** get sends one request and answers what the test reads of the response, with when it was sent and received. */
async function get(server) {
  const sentAt = performance.now();
  const res = await fetch(`${server.url}/`);
  await res.arrayBuffer();
  return {
    status: res.status,
    by: res.headers.get('x-served-by'),
    limit: res.headers.get('ratelimit'),
    retry: res.headers.get('retry-after'),
    sentAt,
    receivedAt: performance.now(),
  };
}

/** alternate sends `n` requests one after another, to A, B, A, … */
async function alternate(servers, n) {
  const answers = [];
  for (let i = 0; i < n; i++) answers.push(await get(servers[i % 2]));
  return answers;
}

/** burst sends `each` requests to every server, all at once, and answers how many were admitted. */
async function burst(servers, each) {
  const answers = await Promise.all(servers.flatMap((s) => Array.from({ length: each }, () => get(s))));
  expect(answers.filter((a) => a.status !== 200 && a.status !== 429)).toEqual([]);
  return answers.filter((a) => a.status === 200).length;
}

describe.runIf(down === undefined)('two servers sharing one limit through PostgreSQL', () => {
  const table = `rk_example_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
  const tables = [table, `${table}_a`, `${table}_b`];
  let pool;
  let servers = [];

  /** start runs servers A and B on `tableOf(name)`, from `store` (a module URL) instead of @ratekeeper/postgres when given. */
  const start = (tableOf, store) => Promise.all(['A', 'B'].map((name) => startServer(name, { DATABASE_URL, RATEKEEPER_TABLE: tableOf(name) }, store)));

  /** empty resets every limit on `name` (a table the store has not created yet holds none). */
  async function empty(name) {
    try {
      await pool.query(`DELETE FROM ${name}`);
    } catch (error) {
      if (error.code !== '42P01') throw error; // undefined_table
    }
  }

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: DATABASE_URL });
    pool.on('error', () => {});
    servers = await start(() => table);
  }, PROCESS_TEST_MS);

  beforeEach(async () => {
    for (const name of tables) await empty(name);
  });

  afterAll(async () => {
    await Promise.all(servers.map((s) => stop(s.child)));
    if (pool === undefined) return;
    for (const name of tables) await pool.query(`DROP TABLE IF EXISTS ${name}, ${name}_peers`);
    await pool.end();
  });

  it(
    'admits exactly 10 requests in total, whichever server answers, then 429 with the store’s own Retry-After',
    async () => {
      const answers = await alternate(servers, 16);
      const tookMs = answers[15].receivedAt - answers[0].sentAt;
      if (tookMs >= INTERVAL_MS) throw new Error(`the 16 requests took ${Math.round(tookMs)} ms, a token refills every ${INTERVAL_MS} ms: too slow a run to count exactly`);
      expect(answers.map((a) => a.status)).toEqual([...Array(LIMIT).fill(200), ...Array(6).fill(429)]);
      expect(answers.map((a) => a.by)).toEqual(Array.from({ length: 16 }, (_, i) => (i % 2 === 0 ? 'A' : 'B')));
      // The count goes down across both servers: B's first answer already shows the token A spent.
      expect(answers.slice(0, LIMIT).map((a) => /^"api";r=(\d+);t=\d+$/.exec(a.limit)?.[1])).toEqual(['9', '8', '7', '6', '5', '4', '3', '2', '1', '0']);
      expect(answers.slice(0, LIMIT).map((a) => a.retry)).toEqual(Array(LIMIT).fill(null));

      // The state lives in the table: one row, this client's bucket of policy 'api'.
      expect((await pool.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n).toBe(1);

      // The bucket as the table holds it now, read by a limiter of the same policy on its own store.
      const reader = new TokenBucketLimiter({ capacity: LIMIT, refillPerSecond: 1 / 6, name: 'api', store: new PostgresStore({ client: pool, table }) });
      const view = await reader.peek(KEY);
      const peekedBy = performance.now();
      expect([view.allowed, view.remaining]).toEqual([false, 0]);
      expect(view.retryAfterMs).toBeGreaterThan(0);
      expect(view.retryAfterMs).toBeLessThanOrEqual(INTERVAL_MS);
      for (const denied of answers.slice(LIMIT)) {
        // Decided between its sending and the peek: its wait was the peek's plus at most that much (no token refilled: all 16 took under 6 s).
        const lo = Math.ceil(view.retryAfterMs / 1000);
        const hi = Math.ceil(Math.min(INTERVAL_MS, view.retryAfterMs + (peekedBy - denied.sentAt)) / 1000);
        expect(Number(denied.retry)).toBeGreaterThanOrEqual(lo);
        expect(Number(denied.retry)).toBeLessThanOrEqual(hi);
        expect(denied.limit).toBe(`"api";r=0;t=${denied.retry}`);
      }
      expect(servers.flatMap((s) => s.warnings)).toEqual([]); // every decision was the database's, none a fallback's
    },
    PROCESS_TEST_MS,
  );

  it(
    'admits exactly 10 of 40 requests sent to both servers at once',
    async () => {
      expect(await burst(servers, 20)).toBe(LIMIT);
      expect(servers.flatMap((s) => s.warnings)).toEqual([]);
    },
    PROCESS_TEST_MS,
  );

  it(
    'catches servers that each keep their own count (mutant: a table per process): 10 per server',
    async () => {
      const mutants = await start((name) => `${table}_${name.toLowerCase()}`);
      try {
        const answers = await alternate(mutants, 16);
        expect(answers.map((a) => a.status)).toEqual(Array(16).fill(200));
        for (const name of ['a', 'b']) await empty(`${table}_${name}`);
        expect(await burst(mutants, 20)).toBe(2 * LIMIT);
      } finally {
        await Promise.all(mutants.map((s) => stop(s.child)));
      }
    },
    PROCESS_TEST_MS,
  );

  it('catches a store that reads its rows without locking them (mutant build no-lock): a burst over-admits', async () => {
    const mutants = await start(() => table, mutantBuild('no-lock'));
    try {
      const admitted = [];
      while (admitted.length < NO_LOCK_BURSTS && !admitted.some((n) => n > LIMIT)) {
        await empty(table);
        admitted.push(await burst(mutants, 20));
      }
      console.log(`no-lock mutant: admitted ${admitted.join(', ')} (limit ${LIMIT})`);
      expect(admitted.some((n) => n > LIMIT)).toBe(true);
    } finally {
      await Promise.all(mutants.map((s) => stop(s.child)));
    }
  }, 120_000);
});
