/**
 * Tables whose names differ only in case (issue 31, item 11). MySQL compares routine names without
 * case while table names keep it (lower_case_table_names = 0, the default on Linux), so a store on
 * `CaseA` once called the commit routine another store had made for `casea`, which wrote its commit
 * records into `casea_commits`: after a lost commit reply it found no record of its own and counted
 * the batch twice. The routine's name now carries which letters of the table are capitals
 * (src/sql.ts). With DEFAULT options, a store on `casea` commits once, then a store on `CaseA` whose
 * every commit reply is lost (./support/lost-commits.ts) admits exactly 5 of 12 on a limit of 5 and
 * records 5, each table holding exactly its own commit records. The mutant whose routine is named
 * after the lower-cased table ('case-blind-routine') shares `casea`'s routine and admits fewer.
 */
import { FixedWindowLimiter } from '@ratekeeper/core';
import { afterAll, expect, it } from 'vitest';
import { type FailureInfo, MySqlStore } from '../src/index.js';
import { countOf, createPool, describeMySql, dropTable, hasMySql } from './support/db.js';
import { lostCommits } from './support/lost-commits.js';
import { mutantBuild } from './support/mutant-builds.js';

const pool = createPool();
const tables: string[] = [];
let runs = 0;

/** Whether the server keeps the case of table names (else `CaseA` and `casea` are one table, and rightly share everything). */
const caseKept = hasMySql && Number(((await pool.query('SELECT @@lower_case_table_names AS l'))[0] as { l: unknown }[])[0]?.l) === 0;

afterAll(async () => {
  for (const name of tables) await dropTable(pool, name).catch(() => undefined);
  await pool.end();
});

async function commitRecords(table: string): Promise<number> {
  const [rows] = await pool.query(`SELECT COUNT(*) AS n FROM \`${table}_commits\``);
  return Number((rows as { n: unknown }[])[0]?.n);
}

async function run(Store: typeof MySqlStore) {
  const lower = `rkt_casea${runs}_${process.pid}`;
  const upper = `rkt_CaseA${runs++}_${process.pid}`;
  tables.push(lower, upper);
  const first = new FixedWindowLimiter({ store: new Store({ client: pool, table: lower }), limit: 5, windowMs: 3_600_000, name: 'case' });
  expect((await first.consume('k')).failure).toBeUndefined();
  const store = new Store({ client: lostCommits(pool), table: upper });
  const failures: FailureInfo[] = [];
  store.on('failure', (info) => failures.push(info));
  const limiter = new FixedWindowLimiter({ store, limit: 5, windowMs: 3_600_000, name: 'case' });
  const allowed: boolean[] = [];
  for (let i = 0; i < 12; i++) allowed.push((await limiter.consume('k')).allowed);
  return { allowed, failures, count: await countOf(pool, upper, 'case', 'k'), records: [await commitRecords(lower), await commitRecords(upper)] };
}

describeMySql('tables whose names differ only in case', () => {
  it.runIf(caseKept)('never share a commit routine nor its records: a lost commit reply is found, exactly the limit admitted and recorded', async () => {
    const { allowed, failures, count, records } = await run(MySqlStore);
    expect(failures).toEqual([]);
    expect(allowed).toEqual([...Array(5).fill(true), ...Array(7).fill(false)]);
    expect(count).toBe(5);
    expect(records).toEqual([1, 5]);
  });

  it.runIf(caseKept)('catches a routine named without the case of its table', async () => {
    const { MySqlStore: Blind } = (await import(mutantBuild('case-blind-routine'))) as { MySqlStore: typeof MySqlStore };
    const { allowed } = await run(Blind);
    expect(allowed.filter(Boolean).length).toBeLessThan(5);
  });
});
