/**
 * What PostgresStore adds to the store contract's burst (./store-contract.test.ts: 8 processes, every
 * algorithm, leases and a composite, exactly the limit, and the no-lock mutant): bans under the same
 * burst. 8 worker processes, each with its own client (four pg Pools, four postgres.js sql) and a
 * PostgresStore of DEFAULT options on one table, make 2,000 requests each, all in flight at once
 * (after a barrier), on one key with a limit of 500, through a BanLimiter over the fixed window
 * (banMs 10^9, far below the window's 10^12 so a ban's denial and the window's are told apart): a
 * burst on a free key admits exactly 500 and answers every other request with the ban (the first ban
 * denial is banMs exactly, none the window's); a burst on a key already banned admits none, and leaves
 * the ban's row and the algorithm's row byte for byte as they were (a denial while banned changes
 * nothing). A mutant build whose denials during a ban restart it ('denial-rebans') runs in the same
 * harness and must move the ban's end. Runs alternate between a key with no row yet and one whose
 * row exists (reset before the burst).
 */
import { BanLimiter, FixedWindowLimiter } from '@ratekeeper/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PostgresStore } from '../src/index.js';
import { nameHead, rowId } from '@ratekeeper/core/store';
import { describeDb, dropTables, pgPool, uniqueTable } from './support/db.js';
import { failuresOf } from '@ratekeeper/store-contract';
import { mutantBuild } from './support/mutant-builds.js';
import { type MemberSpec, WorkerPool, totalAdmitted } from './support/workers.js';

const WORKERS = 8;
const REQUESTS = 2000;
const LIMIT = 500;
const HUGE_WINDOW_MS = 1e12;
/** RATEKEEPER_EXACT_RUNS repeats each run (nightly: 20). */
const RUNS = Number(process.env['RATEKEEPER_EXACT_RUNS'] ?? 2);

/** The fixed window the bans are over (its default name is the row's policy name). */
const FIXED: MemberSpec = { algorithm: 'fixed-window', limit: LIMIT, windowMs: HUGE_WINDOW_MS };
const BAN_MS = 1e9;

const table = uniqueTable('burst');
const admin = pgPool({ max: 2 });
let pool: WorkerPool;
let runs = 0;

beforeAll(() => {
  pool = new WorkerPool(WORKERS);
});

afterAll(async () => {
  pool?.close();
  await admin.end();
  await dropTables(table);
});

/** burst runs one burst on a new key: a key with no row yet (the rows are inserted under contention), or, `resetFirst`, a row that exists. */
function burst(members: readonly MemberSpec[], resetFirst: boolean, dist?: string, ban?: { key: string; banMs: number }) {
  const key = ban?.key ?? `exact-${runs++}`;
  const requests = Array.from({ length: REQUESTS }, () => [key, 1] as const);
  const setups = Array.from({ length: WORKERS }, (_, i) => ({
    table,
    client: i % 2 === 0 ? ('pg' as const) : ('postgres' as const),
    members,
    requests,
    resetFirst,
    ...(dist === undefined ? {} : { dist }),
    ...(ban === undefined ? {} : { banMs: ban.banMs }),
  }));
  return pool.run(setups);
}

describeDb('bans under 8 processes × 2,000 requests in flight on one key of one table with a limit of 500', () => {
  /** rowsOf answers the ban's row and the algorithm's row of `key` under the fixed window's default name, as stored: 'state expiry', or undefined. */
  async function rowsOf(key: string): Promise<{ ban: string | undefined; window: string | undefined }> {
    const name = new FixedWindowLimiter({ limit: LIMIT, windowMs: HUGE_WINDOW_MS }).policy.name;
    const read = async (row: string) => {
      const found = await admin.query(`SELECT state::text AS s, expires_at::text AS e FROM ${table} WHERE k = decode('${row}','hex')`);
      return found.rows[0] === undefined ? undefined : `${found.rows[0].s} ${found.rows[0].e}`;
    };
    return { ban: await read(rowId(nameHead(`${name}#ban`), key)), window: await read(rowId(nameHead(name), key)) };
  }

  it('bans exactly: 500 admitted, every other request denied by the ban and none by the window, run after run', async () => {
    for (let run = 0; run < RUNS; run++) {
      const key = `ban-${runs++}`;
      const reports = await burst([FIXED], run % 2 === 1, undefined, { key, banMs: BAN_MS });
      expect(failuresOf(reports)).toEqual([]);
      expect(reports.map((r) => r.failed)).toEqual(Array(WORKERS).fill(0));
      expect(totalAdmitted(reports)).toBe(LIMIT);
      const denied = reports.flatMap((r) => (r.denied === null ? [] : [r.denied]));
      expect(Math.max(...denied.map((d) => d.most)), 'the first denial starts the ban: banMs').toBe(BAN_MS);
      expect(Math.min(...denied.map((d) => d.least)), 'every denial is the ban, none the window').toBeGreaterThan(BAN_MS - 600_000);
      const { ban } = await rowsOf(key);
      expect(ban, 'the ban, started by a request of cost 1, expiring at its end').toMatch(/^\{([0-9.e+]+),1\} \1$/);
    }
  });

  /** bannedBurst bans a key from this process, then bursts on it; answers the reports and the key's rows before and after. */
  async function bannedBurst(dist?: string) {
    const key = `banned-${runs++}`;
    const store = new PostgresStore({ client: admin, table });
    const limiter = new BanLimiter({ limiter: new FixedWindowLimiter({ limit: LIMIT, windowMs: HUGE_WINDOW_MS, store }), banMs: BAN_MS });
    const decisions = await Promise.all(Array.from({ length: LIMIT + 1 }, () => limiter.consume(key)));
    expect(decisions.filter((d) => d.allowed).length).toBe(LIMIT);
    expect((decisions[LIMIT] as { retryAfterMs: number }).retryAfterMs, 'the 501st request starts the ban').toBe(BAN_MS);
    const before = await rowsOf(key);
    const reports = await burst([FIXED], false, dist, { key, banMs: BAN_MS });
    return { reports, before, after: await rowsOf(key) };
  }

  it("denies a banned key every request and changes nothing: the ban's end and the window's count stay as they were", async () => {
    for (let run = 0; run < RUNS; run++) {
      const { reports, before, after } = await bannedBurst();
      expect(failuresOf(reports)).toEqual([]);
      expect(totalAdmitted(reports)).toBe(0);
      expect(Math.max(...reports.map((r) => r.denied?.most ?? Number.NaN)), 'while banned: the time left').toBeLessThan(BAN_MS);
      expect(before.ban, 'the ban before the burst').toMatch(/^\{([0-9.e+]+),1\} \1$/);
      expect(before.window, 'the window before the burst').toMatch(/^\{/);
      expect(after).toEqual(before);
    }
  });

  it('catches denials that restart the ban (denial-rebans) moving its end in the same harness', async () => {
    const { before, after } = await bannedBurst(mutantBuild('denial-rebans'));
    expect(after.ban).not.toEqual(before.ban);
  });
});
