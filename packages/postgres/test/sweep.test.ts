/**
 * The sweeper (core's packages/core/src/store/rows/housekeeping.ts, over src/dialect.ts's `sweep`): after a batch commits, at most every SWEEP_EVERY_MS, one DELETE of up to
 * SWEEP_LIMIT rows whose state has been empty for EXPIRED_GRACE_MS, in the batch's time, run beside
 * the decisions (never awaited by a call); a full SWEEP_LIMIT sweeps again at the next commit. Rows
 * are made and swept by the store's own calls (fixed windows, whose rows expire at their window's
 * end), with exact row counts at each step:
 *
 * - client time (`time: 'client'`, ManualClocks): 1,500 rows expired long ago, GRACE rows expired
 *   less than EXPIRED_GRACE_MS ago, LIVE rows whose window runs on. A store that starts later sweeps at
 *   its first commit: exactly SWEEP_LIMIT rows go; its next commit sweeps the other 500; the rows in
 *   their grace, the live ones and the committing call's own stay, key for key;
 * - server time (DEFAULT options): rows written by a client-time store with the wall clock an hour
 *   back (expired), 30 s back (in their grace) and now (live); a server-time store's first commit
 *   sweeps exactly the expired ones, by the server's clock.
 *
 * - beside the decisions: a sweep held up (a BEFORE DELETE trigger waiting for an advisory lock the
 *   test holds) keeps no call waiting: the call whose commit started it has its answer, and later
 *   calls on other keys are decided by the database, while the sweep is still blocked; once it goes
 *   on, it deletes exactly the expired rows. The mutant that awaits the sweep in the decision path
 *   ('sweep-awaited') leaves the call that started it unanswered meanwhile.
 *
 * A mutant that deletes rows still live ('sweep-live-rows': the grace added instead of taken off) is
 * caught by the same client-time check. A sweep that did not go again after a full SWEEP_LIMIT would
 * leave 500 of the 1,500 (no sweep of 1,000 can delete them all): the exact count after the second
 * commit is that check, and its mutant build is not run here, to keep this file's time down.
 */
import { FixedWindowLimiter, ManualClock } from '@ratekeeper/core';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PostgresStore } from '../src/index.js';
import { nameHead, rowId } from '@ratekeeper/core/store';
import { EXPIRED_GRACE_MS, SWEEP_LIMIT } from '@ratekeeper/core/store';
import { type Client, PG, describeDb, dropTables, makeClient, uniqueTable } from './support/db.js';
import { mutantBuild } from './support/mutant-builds.js';

const EXPIRED = 1_500;
const GRACE = 10;
const LIVE = 10;
/** HELD: the expired rows of the held-up sweep. */
const HELD = 10;
/** How long a sweep may take to show (a bounded poll: the sweep is not awaited by the call that started it). */
const SWEEP_BOUND_MS = 5_000;
const SHORT_MS = 1_000;
const LONG_MS = 3_600_000;
/** T0: a multiple of every window, so each row's expiry is exact. */
const T0 = 1_000 * LONG_MS;
const tables: string[] = [];
const clients: Client[] = [];
let admin: pg.Pool;

beforeAll(() => {
  admin = new pg.Pool({ ...PG, max: 2 });
});

afterAll(async () => {
  for (const c of clients) await c.end();
  await admin?.end();
  for (const table of tables) await dropTables(table);
});

function newTable(label: string): string {
  const table = uniqueTable(label);
  tables.push(table);
  return table;
}

function newStore(table: string, time: 'client' | 'server', Store: typeof PostgresStore = PostgresStore): PostgresStore {
  const client = makeClient('pg');
  clients.push(client);
  return new Store(time === 'client' ? { client: client.client, table, time } : { client: client.client, table });
}

/** Rows is a set of rows a test made: the limiter's name and the keys. */
interface Rows {
  readonly name: string;
  readonly keys: readonly string[];
}

/** fill makes one row per key: a first call admitted at `at` on a fixed window of `windowMs`. */
async function fill(store: PostgresStore, name: string, count: number, windowMs: number, at: number): Promise<Rows> {
  const limiter = new FixedWindowLimiter({ store, limit: 1, windowMs, name, clock: new ManualClock(at) });
  const keys = Array.from({ length: count }, (_, i) => `${name}-${i}`);
  const decisions = await Promise.all(keys.map((key) => limiter.consume(key)));
  expect(decisions.filter((d) => d.allowed && d.failure === undefined).length).toBe(count);
  return { name, keys };
}

function hexKeys(...sets: Rows[]): string[] {
  return sets.flatMap(({ name, keys }) => keys.map((key) => rowId(nameHead(name), key))).sort();
}

async function rowCount(table: string): Promise<number> {
  return Number((await admin.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]?.['n']);
}

async function rowKeys(table: string): Promise<string[]> {
  return (await admin.query(`SELECT encode(k, 'hex') AS k FROM ${table}`)).rows.map((r) => String(r['k'])).sort();
}

/** sweptTo polls the row count until it is at most `target` (or SWEEP_BOUND_MS has passed) and answers it. */
async function sweptTo(table: string, target: number): Promise<number> {
  const from = performance.now();
  for (;;) {
    const count = await rowCount(table);
    if (count <= target || performance.now() - from > SWEEP_BOUND_MS) return count;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** clientTime runs the client-time scenario with the given build's store; it answers the counts and the keys left. */
async function clientTime(Store: typeof PostgresStore = PostgresStore) {
  const table = newTable('sweepc');
  // The writer's first commit sweeps too, by its own clock: nothing has expired then.
  const writer = newStore(table, 'client', Store);
  await fill(writer, 'expired', EXPIRED, SHORT_MS, T0);
  const live = await fill(writer, 'live', LIVE, LONG_MS, T0);
  // Expired at T0 + 61 s: in their grace until T0 + 121 s.
  const grace = await fill(writer, 'grace', GRACE, SHORT_MS, T0 + EXPIRED_GRACE_MS);
  const before = await rowCount(table);

  // A store that starts at T0 + 100 s: its first commit sweeps rows empty before T0 + 40 s.
  const sweeper = newStore(table, 'client', Store);
  const now = T0 + 100_000;
  const first = await fill(sweeper, 'first', 1, SHORT_MS, now);
  const afterFirst = await sweptTo(table, before + 1 - SWEEP_LIMIT);
  // It deleted a full SWEEP_LIMIT: the next commit sweeps again.
  const second = await fill(sweeper, 'second', 1, SHORT_MS, now);
  const afterSecond = await sweptTo(table, before + 2 - EXPIRED);
  return { before, afterFirst, afterSecond, left: await rowKeys(table), kept: hexKeys(live, grace, first, second) };
}

/** heldUp runs the held-up sweep scenario with the given build's store (see the header). */
async function heldUp(Store: typeof PostgresStore = PostgresStore) {
  const table = newTable('sweeph');
  const lock = Math.floor(Math.random() * 2 ** 31);
  await fill(newStore(table, 'client', Store), 'expired', HELD, SHORT_MS, T0);
  const holder = await admin.connect();
  await holder.query('SELECT pg_advisory_lock($1)', [lock]);
  await admin.query(
    `CREATE FUNCTION ${table}_hold() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_advisory_xact_lock_shared(${lock}); RETURN OLD; END $$; ` +
      `CREATE TRIGGER ${table}_hold BEFORE DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${table}_hold()`,
  );
  try {
    const store = newStore(table, 'client', Store);
    let answered = false;
    const first = fill(store, 'first', 1, SHORT_MS, T0 + 100_000).then(() => {
      answered = true;
    });
    // Until the sweep that call's commit started waits for the lock (a bounded poll).
    const blocked = async () =>
      Number(
        (await admin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event = 'advisory' AND starts_with(query, $1)", [`WITH d AS (DELETE FROM "${table}" `]))
          .rows[0]?.['n'],
      ) === 1;
    for (let i = 0; !(await blocked()); i++) {
      if (i > 250) throw new Error('the sweep did not start');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // The call's answer, if it does not wait for the sweep, is at most a few turns away (a bounded poll).
    for (let i = 0; !answered && i < 50; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    const firstAnswered = answered;
    let later = false;
    if (firstAnswered) {
      await fill(store, 'later', LIVE, SHORT_MS, T0 + 100_000);
      later = await blocked();
    }
    const whileBlocked = await rowCount(table);
    await holder.query('SELECT pg_advisory_unlock($1)', [lock]);
    await first;
    const after = await sweptTo(table, whileBlocked - HELD);
    return { firstAnswered, later, whileBlocked, after };
  } finally {
    holder.release();
    await admin.query(`DROP TABLE IF EXISTS ${table}; DROP FUNCTION IF EXISTS ${table}_hold()`);
  }
}

describeDb('the sweeper', () => {
  it(`client time: deletes exactly the rows empty for ${EXPIRED_GRACE_MS / 1000} s, ${SWEEP_LIMIT} per sweep and again at the next commit, never a live one`, async () => {
    const { before, afterFirst, afterSecond, left, kept } = await clientTime();
    expect(before).toBe(EXPIRED + LIVE + GRACE);
    expect(afterFirst).toBe(before + 1 - SWEEP_LIMIT);
    expect(afterSecond).toBe(before + 2 - EXPIRED);
    expect(left).toEqual(kept);
  });

  it('server time (DEFAULT options): a store sweeps by the server clock exactly the rows expired for the grace', async () => {
    const table = newTable('sweeps');
    const writer = newStore(table, 'client');
    const wall = Math.floor(Date.now() / SHORT_MS) * SHORT_MS;
    // Written with the wall clock as the client's: now (live for an hour), 30 s back (in the grace), an
    // hour back (expired). In that order, no sweep of the writer's own (its first commit, or one 10 s
    // later) can delete a row of the test's.
    const live = await fill(writer, 'live', LIVE, LONG_MS, wall);
    const grace = await fill(writer, 'grace', GRACE, SHORT_MS, wall - EXPIRED_GRACE_MS / 2);
    await fill(writer, 'expired', 20, SHORT_MS, wall - LONG_MS);
    const before = await rowCount(table);
    const store = newStore(table, 'server');
    expect(store.time).toBe('server');
    const first = await fill(store, 'first', 1, SHORT_MS, 0);
    expect(await sweptTo(table, before + 1 - 20)).toBe(before + 1 - 20);
    expect(await rowKeys(table)).toEqual(hexKeys(grace, live, first));
  });

  it('runs beside the decisions: a sweep held up keeps no call waiting, then deletes exactly the expired rows', async () => {
    const { firstAnswered, later, whileBlocked, after } = await heldUp();
    expect(firstAnswered).toBe(true);
    // LIVE more calls decided by the database (fill checks each) while the sweep was still blocked.
    expect(later).toBe(true);
    expect(whileBlocked).toBe(HELD + 1 + LIVE);
    expect(after).toBe(1 + LIVE);
  });

  it('catches a sweep awaited in the decision path', async () => {
    const { PostgresStore: Awaiting } = (await import(mutantBuild('sweep-awaited'))) as { PostgresStore: typeof PostgresStore };
    const { firstAnswered } = await heldUp(Awaiting);
    expect(firstAnswered).toBe(false);
  });

  it('catches a sweep that deletes live rows', async () => {
    const { PostgresStore: Eager } = (await import(mutantBuild('sweep-live-rows'))) as { PostgresStore: typeof PostgresStore };
    const { left, kept } = await clientTime(Eager);
    expect(left).not.toEqual(kept);
    expect(left.length).toBeLessThan(kept.length);
  });
});
