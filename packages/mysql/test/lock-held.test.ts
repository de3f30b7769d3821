/**
 * A lock held by another session: an administrator's transaction holds a key's row (SELECT … FOR
 * UPDATE) and does not end. A MySqlStore of DEFAULT options (timeout 1 s, 'fallback') waits, then
 * decides the calls on that key by its failure policy within the bound (10 × timeoutMs at most, as
 * its peer beats keep the server answering), reported as 'timeout'. When the lock is released, the
 * transactions still queued behind it reach the commit after their deadline and commit nothing: the
 * row holds only what the database decided, never also what the fallback did. A mutant whose commit
 * ignores the deadline records the fallback's calls too, and the same check catches it.
 */
import { FixedWindowLimiter } from '@ratekeeper/core';
import { afterAll, expect, it } from 'vitest';
import { type FailureInfo, MySqlStore } from '../src/index.js';
import { createPool, describeMySql, dropTable, table } from './support/db.js';
import { mutantBuild } from './support/mutant-builds.js';

const pool = createPool();
const TABLE = table('lock');
let runs = 0;

afterAll(async () => {
  await dropTable(pool, TABLE).catch(() => undefined);
  await pool.end();
});

/** countOf reads a fixed window's count ([start, count] as doubles) from the table. */
async function countOf(name: string): Promise<number | undefined> {
  const [rows] = await pool.query(`SELECT state FROM \`${TABLE}\` WHERE policy = ?`, [name]);
  return (rows as { state: Buffer }[])[0]?.state.readDoubleLE(8);
}

async function run(Store: typeof MySqlStore) {
  const name = `lock-${runs++}`;
  const store = new Store({ client: pool, table: TABLE });
  const failures: FailureInfo[] = [];
  store.on('failure', (info) => failures.push(info));
  const limiter = new FixedWindowLimiter({ store, limit: 10, windowMs: 3_600_000, name });
  expect((await limiter.consume('k')).failure).toBeUndefined();
  const holder = await pool.getConnection();
  await holder.query('START TRANSACTION');
  await holder.query(`SELECT state FROM \`${TABLE}\` WHERE policy = ? FOR UPDATE`, [name]);
  const startedAt = performance.now();
  const decisions = await Promise.all(Array.from({ length: 5 }, () => limiter.consume('k')));
  const waitedMs = performance.now() - startedAt;
  await holder.query('ROLLBACK');
  holder.release();
  // A call queued behind the stale transactions (InnoDB grants a row's lock in order) proves they ended.
  const after = new FixedWindowLimiter({ store: new MySqlStore({ client: pool, table: TABLE }), limit: 10, windowMs: 3_600_000, name });
  const last = await after.consume('k');
  return { decisions, waitedMs, failures, last, count: await countOf(name) };
}

describeMySql('a lock held by another session', () => {
  it('is waited for, then the calls are decided by the failure policy within the bound, and never also by the database', async () => {
    const { decisions, waitedMs, failures, last, count } = await run(MySqlStore);
    expect(decisions.map((d) => d.failure)).toEqual(Array(5).fill('fallback'));
    expect(waitedMs).toBeLessThan(12_000);
    expect(new Set(failures.map((f) => f.reason))).toEqual(new Set(['timeout']));
    expect(last.failure).toBeUndefined();
    expect(count).toBe(2);
  });

  it('catches a store whose commit ignores the deadline', async () => {
    const { MySqlStore: Late } = (await import(mutantBuild('commit-past-deadline'))) as { MySqlStore: typeof MySqlStore };
    const { count } = await run(Late);
    expect(count).toBeGreaterThan(2);
  });
});
