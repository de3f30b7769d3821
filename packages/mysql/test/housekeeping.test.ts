/**
 * Housekeeping on MySQL: the kit's sweep (core's housekeeping.ts: after a commit, at most every
 * SWEEP_EVERY_MS, the rows empty for EXPIRED_GRACE_MS deleted, never awaited by a call) through this
 * dialect's DELETE, and the indexes it and a decision walk. Rows are made and swept by the stores' own
 * calls (fixed windows of 1 s, time: 'client'), counted exactly: a store's sweep and its next call go
 * on its pool's one connection in that order, so that call answers after the sweep has ended.
 *
 * - 20 rows that expired less than the grace ago stay: a store started then sweeps at its first
 *   commit and deletes none of them;
 * - past the grace, a store started then deletes all 20 at its first commit; the rows in their grace
 *   stay, and a swept key decides as a new one;
 * - the statements of a decision and of a sweep search the primary key or the expiry index (EXPLAIN
 *   on a table of 2,000 rows).
 */
import { FixedWindowLimiter, ManualClock } from '@ratekeeper/core';
import type mysql from 'mysql2/promise';
import { afterAll, expect, it } from 'vitest';
import { EXPIRED_GRACE_MS, MySqlStore } from '../src/index.js';
import { statements } from '../src/sql.js';
import { createPool, describeMySql, dropTable, table } from './support/db.js';

const pool = createPool(3);
const pools: mysql.Pool[] = [];
const TABLE = table('sweep');
/** T0: a multiple of the window, so each row's expiry is exact. */
const T0 = 1_700_000_000_000;

afterAll(async () => {
  for (const p of pools) await p.end();
  await dropTable(pool, TABLE).catch(() => undefined);
  await pool.end();
});

async function rows(): Promise<number> {
  const [found] = await pool.query(`SELECT COUNT(*) AS n FROM \`${TABLE}\``);
  return Number((found as { n: unknown }[])[0]?.n);
}

/** limiterAt is a fixed window of 2 per second on a new store (a pool of one connection) whose clock reads `at`. */
function limiterAt(at: number): FixedWindowLimiter<'async'> {
  const one = createPool(1);
  pools.push(one);
  return new FixedWindowLimiter({ store: new MySqlStore({ client: one, table: TABLE, time: 'client' }), clock: new ManualClock(at), limit: 2, windowMs: 1_000, name: 'sweep' });
}

describeMySql('expired rows', () => {
  it('are deleted by the first sweep once empty for the grace, never before; a swept key decides as a new one', async () => {
    const first = limiterAt(T0);
    await Promise.all(Array.from({ length: 20 }, (_, i) => first.consume(`k${i}`)));
    expect(await rows()).toBe(20);
    // Empty since T0 + 1 s, not yet for the grace: the sweep at this store's first commit deletes none.
    const inGrace = limiterAt(T0 + EXPIRED_GRACE_MS);
    await inGrace.consume('fresh-1');
    await inGrace.peek('fresh-1');
    expect(await rows()).toBe(21);
    // Past the grace: the 20 go, the row in its grace stays, and so does this store's own.
    const past = limiterAt(T0 + 2_000 + EXPIRED_GRACE_MS);
    await past.consume('fresh-2');
    expect(await past.peek('k0')).toMatchObject({ allowed: true, remaining: 1 });
    expect(await rows()).toBe(2);
  });

  it('are found through indexes: the statements of a decision and of a sweep search the primary key or the expiry index', async () => {
    const sql = statements(TABLE, 'mariadb');
    // A table of some size (2,000 live rows), analyzed, so that the plans are those of a real table.
    const values = Array.from({ length: 2_000 }, (_, i) => `(${pool.escape(Buffer.from(`plans${i}`))}, NULL, ${2e12 + i})`);
    await pool.query(`INSERT INTO \`${TABLE}\` (k, state, expires_at) VALUES ${values.join(',')}`);
    await pool.query(`ANALYZE TABLE \`${TABLE}\``);
    const plan = async (statement: string, values: unknown[]) => {
      const [found] = await pool.query(`EXPLAIN ${statement.replace(/^SET STATEMENT .* FOR /, '')}`, values);
      return (found as { key: string | null; type: string }[])[0];
    };
    expect(await plan(sql.read(2), [Buffer.from('x'), Buffer.from('y')])).toMatchObject({ key: 'PRIMARY', type: 'range' });
    // A range of the index, or the index walked in order from its start up to the LIMIT.
    const sweep = await plan(sql.sweep(500), [1, 1000]);
    expect(sweep?.key).toBe(`${TABLE}_expiry`);
    expect(['range', 'index']).toContain(sweep?.type);
  });
});
