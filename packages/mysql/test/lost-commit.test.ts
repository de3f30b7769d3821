/**
 * A commit whose reply is lost (./support/lost-commits.ts: every transaction commits and never hears
 * it). The store must ask the transaction's fate (src/dialect.ts: unknown while its connection still
 * runs on the server, then committed when its id is in the commit records), find it committed, and
 * answer the decisions it committed: 12 calls on a limit of 5 → exactly 5 admitted, in order, and the
 * table holds exactly 5, with DEFAULT options. A mutant that runs such a transaction again without
 * asking ('blind-commit-retry') counts each twice (its calls are denied by their own first run) and
 * fails the same check.
 */
import { FixedWindowLimiter } from '@ratekeeper/core';
import { afterAll, expect, it } from 'vitest';
import { type FailureInfo, MySqlStore } from '../src/index.js';
import { countOf, createPool, describeMySql, dropTable, table } from './support/db.js';
import { lostCommits } from './support/lost-commits.js';
import { mutantBuild } from './support/mutant-builds.js';

const pool = createPool();
const TABLE = table('lost');
let keys = 0;

afterAll(async () => {
  await dropTable(pool, TABLE).catch(() => undefined);
  await pool.end();
});

async function run(Store: typeof MySqlStore) {
  const store = new Store({ client: lostCommits(pool), table: TABLE });
  const failures: FailureInfo[] = [];
  store.on('failure', (info) => failures.push(info));
  const name = `lost-${keys++}`;
  const limiter = new FixedWindowLimiter({ store, limit: 5, windowMs: 3_600_000, name });
  const allowed: boolean[] = [];
  for (let i = 0; i < 12; i++) allowed.push((await limiter.consume('k')).allowed);
  return { allowed, failures, count: await countOf(pool, TABLE, name, 'k') };
}

describeMySql('a commit whose reply is lost', () => {
  it('is looked up and its decisions stand: exactly the limit admitted and recorded', async () => {
    const { allowed, failures, count } = await run(MySqlStore);
    expect(failures).toEqual([]);
    expect(allowed).toEqual([...Array(5).fill(true), ...Array(7).fill(false)]);
    expect(count).toBe(5);
  });

  it('catches a store that runs such a transaction again without looking', async () => {
    const { MySqlStore: Blind } = (await import(mutantBuild('blind-commit-retry'))) as { MySqlStore: typeof MySqlStore };
    const { allowed } = await run(Blind);
    expect(allowed.filter(Boolean).length).toBeLessThan(5);
  });
});
