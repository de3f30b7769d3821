/**
 * Housekeeping: a state empty for EXPIRED_GRACE_MS is deleted off the decision path by a sweep after a
 * committed batch (at most once per second of the table's clock), through the expiry index, never a
 * scan; what the sweep leaves decides exactly as before. The query plans of the statements a decision
 * and a sweep run are read from the server: each searches the primary key or the expiry index. A
 * sweep that comes due while another is still running is not dropped: it runs right after it (checked
 * on a stand-in pool whose first sweep the test holds, so the order is exact whatever the load).
 */
import { FixedWindowLimiter, ManualClock } from '@ratekeeper/core';
import { afterAll, expect, it } from 'vitest';
import { EXPIRED_GRACE_MS, MySqlStore } from '../src/index.js';
import { dialect } from '../src/sql/dialect.js';
import { Housekeeping } from '../src/sql/housekeeping.js';
import type { MySqlPool } from '../src/wire/client.js';
import { createPool, describeMySql, dropTable, table } from './support/db.js';

const pool = createPool(3);
const TABLE = table('sweep');

afterAll(async () => {
  await dropTable(pool, TABLE).catch(() => undefined);
  await pool.end();
});

async function rows(): Promise<number> {
  const [found] = await pool.query(`SELECT COUNT(*) AS n FROM \`${TABLE}\``);
  return Number((found as { n: unknown }[])[0]?.n);
}

/** until polls `condition` (the sweep runs after the batch's reply, unawaited) for at most 5 s. */
async function until(condition: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

it('runs a sweep that came due while another ran, right after it, with the latest instant asked', async () => {
  const sql = dialect('t');
  const asked: unknown[][] = [];
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const pool = {
    query: async (text: string, values: unknown[]) => {
      if (text === sql.sweepState) asked.push(values);
      if (asked.length === 1) await held;
      return [{ affectedRows: 0 }];
    },
  } as unknown as MySqlPool;
  const housekeeping = new Housekeeping(pool, sql);
  housekeeping.after(10_000);
  housekeeping.after(11_500); // due (a second after the first), while the first still runs
  housekeeping.after(12_000);
  expect(asked).toEqual([[10_000 - EXPIRED_GRACE_MS, 1_000]]);
  release();
  for (let i = 0; i < 10 && asked.length < 2; i++) await new Promise((resolve) => setImmediate(resolve));
  expect(asked).toEqual([
    [10_000 - EXPIRED_GRACE_MS, 1_000],
    [12_000 - EXPIRED_GRACE_MS, 1_000],
  ]);
});

describeMySql('expired rows', () => {
  it('are deleted by the sweep once empty for the grace, and a swept key decides as a new one', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const store = new MySqlStore({ client: pool, table: TABLE, time: 'client' });
    const limiter = new FixedWindowLimiter({ store, clock, limit: 2, windowMs: 1_000, name: 'sweep' });
    await Promise.all(Array.from({ length: 20 }, (_, i) => limiter.consume(`k${i}`)));
    expect(await rows()).toBe(20);
    // Empty (window over) but not for the grace yet: nothing is deleted.
    clock.advance(1_000 + EXPIRED_GRACE_MS - 1_000);
    await limiter.consume('fresh-1');
    expect(await rows()).toBe(21);
    // Past the grace: the next committed batch's sweep deletes the 20.
    clock.advance(2_000);
    await limiter.consume('fresh-2');
    expect(await until(async () => (await rows()) === 2)).toBe(true);
    expect(await limiter.consume('k0')).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('are found through indexes: the statements of a decision and of a sweep search the primary key or the expiry index', async () => {
    const sql = dialect(TABLE);
    // A table of some size (2,000 live rows), analyzed, so that the plans are those of a real table.
    const values = Array.from({ length: 2_000 }, (_, i) => `('plans', ${pool.escape(Buffer.from(`key${i}`))}, '', ${2e12 + i})`);
    await pool.query(`INSERT INTO \`${TABLE}\` (policy, k, state, expires_at) VALUES ${values.join(',')}`);
    await pool.query(`ANALYZE TABLE \`${TABLE}\``);
    const plan = async (statement: string, values: unknown[]) => {
      const [found] = await pool.query(`EXPLAIN ${statement}`, values);
      return (found as { key: string | null; type: string }[])[0];
    };
    expect(await plan(sql.read(2), ['a', Buffer.from('x'), 'b', Buffer.from('y')])).toMatchObject({ key: 'PRIMARY', type: 'range' });
    // A range of the index, or the index walked in order from its start up to the LIMIT.
    const sweep = await plan(sql.sweepState, [1, 1000]);
    expect(sweep?.key).toBe(`${TABLE}_expiry`);
    expect(['range', 'index']).toContain(sweep?.type);
  });
});
