/**
 * A lock held by another session: an administrator's transaction holds a key's row (SELECT … FOR
 * UPDATE) and does not end. MySqlStores of DEFAULT options (timeoutMs 1 s, 'fallback') each send one
 * batch of calls on that key, which waits for the lock. Each lock wait is bounded on the server below
 * timeoutMs (src/sql.ts: MariaDB's max_statement_time), so a store hears the database answer while it
 * waits and runs the transaction again: the database is busy, not stopped, on a pool of any size.
 *
 * - Held 2.5 s, then 4 s (issue 31, item 2), on a pool of 10 and on a pool of ONE connection (item 3):
 *   every call is decided by the database once the lock goes, with no failure, exactly the limit. The
 *   mutant whose lock waits are not bounded ('unbounded-lock-wait'), on a pool of one (where the
 *   kit's liveness ping cannot reach the database either: its one connection waits), its row held by a
 *   second session until its calls are decided, hears nothing while it waits: every one of its calls
 *   falls back, long before MAX_WAIT_FACTOR × timeoutMs.
 * - Held until the calls are decided: they wait MAX_WAIT_FACTOR × timeoutMs (10 s), then are decided by
 *   the fallback, one 'timeout' event each, and the breaker stays closed. The transactions still
 *   waiting reach their commit past the deadline and commit nothing: the row holds only what the
 *   database decided. The mutant whose transaction commits whatever its deadline
 *   ('commit-past-deadline') records the fallback's calls too (read with a bounded poll: its waiting
 *   transaction commits when the lock is its turn).
 */
import { FixedWindowLimiter } from '@ratekeeper/core';
import { MAX_WAIT_FACTOR, nameHead, rowId } from '@ratekeeper/core/store';
import type mysql from 'mysql2/promise';
import { afterAll, expect, it } from 'vitest';
import { type FailureInfo, MySqlStore } from '../src/index.js';
import { countOf, createPool, describeMySql, dropTable, table } from './support/db.js';
import { mutantBuild } from './support/mutant-builds.js';

const LIMIT = 10;
const CALLS = 12;
const KEY = 'k';
const TABLE = table('lock');
/** The table of a mutant whose core is its own: its process id, and so its peer count, is another process's. */
const MUTANT_TABLE = table('lockm');
const admin = createPool(3);
const pools: mysql.Pool[] = [];
let runs = 0;

afterAll(async () => {
  for (const pool of pools) await pool.end();
  await dropTable(admin, TABLE).catch(() => undefined);
  await dropTable(admin, MUTANT_TABLE).catch(() => undefined);
  await admin.end();
});

interface Target {
  readonly label: string;
  readonly table: string;
  readonly name: string;
  readonly store: MySqlStore;
  readonly limiter: FixedWindowLimiter<'async'>;
  readonly failures: FailureInfo[];
}

/** target makes a store of DEFAULT options on a pool of `size`, on its own policy name, and decides its first call on the database. */
async function target(size: number, mutant?: 'unbounded-lock-wait' | 'commit-past-deadline', table = TABLE): Promise<Target> {
  const pool = createPool(size);
  pools.push(pool);
  const Store = mutant === undefined ? MySqlStore : ((await import(mutantBuild(mutant))) as { MySqlStore: typeof MySqlStore }).MySqlStore;
  const name = `lock-${runs++}`;
  const store = new Store({ client: pool, table });
  const failures: FailureInfo[] = [];
  store.on('failure', (info) => failures.push(info));
  const limiter = new FixedWindowLimiter({ store, limit: LIMIT, windowMs: 1e12, name });
  const first = await limiter.consume(KEY);
  expect(first.allowed && first.failure === undefined).toBe(true);
  return { label: `pool of ${size}${mutant === undefined ? '' : ` (${mutant})`}`, table, name, store, limiter, failures };
}

/** hold opens another session's transaction and locks each target's row. */
async function hold(targets: readonly Target[]): Promise<mysql.PoolConnection> {
  const holder = await admin.getConnection();
  await holder.query('START TRANSACTION');
  for (const t of targets) await holder.query(`SELECT 1 FROM \`${t.table}\` WHERE k = UNHEX(?) FOR UPDATE`, [rowId(nameHead(t.name), KEY)]);
  return holder;
}

/** burst makes CALLS calls on the key in one turn (one batch) and answers them with how long they took. */
async function burst(t: Target) {
  const startedAt = performance.now();
  const decisions = await Promise.all(Array.from({ length: CALLS }, () => t.limiter.consume(KEY)));
  return { decisions, ms: performance.now() - startedAt };
}

/**
 * heldFor holds the good targets' rows for `seconds` on the server's clock while each sends its burst,
 * and the mutant's row (by a second session) until its burst is decided.
 */
async function heldFor(seconds: number, good: readonly Target[], mutant: Target) {
  const holder = await hold(good);
  const other = await hold([mutant]);
  const bursts = good.map(burst);
  const decided = burst(mutant).finally(() => other.query('ROLLBACK').finally(() => other.release()));
  await holder.query(`DO SLEEP(${seconds})`);
  await holder.query('ROLLBACK');
  holder.release();
  return { good: await Promise.all(bursts), mutant: await decided };
}

describeMySql('a lock held by another session (DEFAULT options)', () => {
  for (const seconds of [2.5, 4]) {
    it(`held ${seconds} s: waited for on a pool of 10 and of 1, every call decided by the database, exactly the limit; catches unbounded lock waits`, async () => {
      const good = [await target(10), await target(1)];
      // On a pool of one, where no ping can reach the database while its one connection waits.
      const mutant = await target(1, 'unbounded-lock-wait');
      const results = await heldFor(seconds, good, mutant);
      for (const [i, t] of good.entries()) {
        const { decisions, ms } = results.good[i] as Awaited<ReturnType<typeof burst>>;
        expect(ms, t.label).toBeGreaterThanOrEqual(seconds * 1000);
        expect(
          decisions.map((d) => d.failure),
          t.label,
        ).toEqual(Array(CALLS).fill(undefined));
        expect(decisions.filter((d) => d.allowed).length, t.label).toBe(LIMIT - 1);
        expect(t.failures, t.label).toEqual([]);
        expect(await countOf(admin, TABLE, t.name, KEY), t.label).toBe(LIMIT);
      }
      // The mutant hears nothing while it waits: it gives up long before the bound the README promises.
      expect(results.mutant.decisions.map((d) => d.failure)).toEqual(Array(CALLS).fill('fallback'));
      expect(results.mutant.ms).toBeLessThan(MAX_WAIT_FACTOR * mutant.store.timeoutMs);
    });
  }

  it(`held until decided: the fallback decides after ${MAX_WAIT_FACTOR} × timeoutMs, and the database never also does; catches a commit past the deadline`, async () => {
    const good = [await target(10), await target(1)];
    const late = await target(10, 'commit-past-deadline', MUTANT_TABLE);
    const targets = [...good, late];
    const timeoutMs = (targets[0] as Target).store.timeoutMs;
    const holder = await hold(targets);
    const results = await Promise.all(targets.map(burst));
    await holder.query('ROLLBACK');
    holder.release();
    const last = await Promise.all(targets.map((t) => t.limiter.consume(KEY)));
    results.forEach(({ decisions, ms }, i) => {
      const t = targets[i] as Target;
      expect(
        decisions.map((d) => d.failure),
        t.label,
      ).toEqual(Array(CALLS).fill('fallback'));
      // The fallback's share: the whole limit, for the one process seen on the table.
      expect(decisions.filter((d) => d.allowed).length, t.label).toBe(LIMIT);
      expect(ms, t.label).toBeGreaterThanOrEqual(MAX_WAIT_FACTOR * timeoutMs - 1);
      expect(ms, t.label).toBeLessThan((MAX_WAIT_FACTOR + 1.5) * timeoutMs);
      expect(t.failures, t.label).toEqual(Array(CALLS).fill({ operation: 'consume', policy: t.name, reason: 'timeout' }));
      // The breaker stayed closed: the next call was decided by the database.
      expect((last[i] as { failure?: string }).failure, t.label).toBeUndefined();
    });
    // The mutant's waiting transaction commits the burst once the lock is its turn (a bounded poll).
    let mutantCount = await countOf(admin, MUTANT_TABLE, late.name, KEY);
    for (let i = 0; i < 200 && (mutantCount ?? 0) <= 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      mutantCount = await countOf(admin, MUTANT_TABLE, late.name, KEY);
    }
    expect(mutantCount).toBeGreaterThan(2);
    // The row holds what the database decided (the first call and the last), never the burst the fallback decided.
    for (const t of good) expect(await countOf(admin, TABLE, t.name, KEY), t.label).toBe(2);
  });
});
