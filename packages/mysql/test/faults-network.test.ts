/**
 * The network's faults between the application and MySQL, through the test kit's fault proxy
 * (@ratekeeper/store-contract networkFaults: one request every 10 ms on one key, healthy, under the
 * fault for 1.2 s, then healed), with the README's client (a mysql2/promise pool) and MySqlStore's
 * DEFAULT options (timeoutMs 1,000, 'fallback'). What the store does:
 *
 * | fault                   | decisions                                 | bound asserted                          |
 * |-------------------------|-------------------------------------------|-----------------------------------------|
 * | latency 100 ms ± 50 ms  | all by the database (slow, answering)     | no fallback                             |
 * | blackhole               | fallback once silent for timeoutMs        | slowest ≤ timeoutMs + SLACK; back ≤ 1 s |
 * | half-open connections   | fallback or the database (rerun on a new) | slowest ≤ timeoutMs + SLACK; back ≤ 1 s |
 * | reset mid-reply         | the database (rerun, or the commit's fate) | slowest ≤ timeoutMs + SLACK; back ≤ 1 s |
 *
 * Throughout, the table's count never falls below what the database admitted, and exceeds it by at
 * most the calls in flight when the fault began: a call decided by the fallback is never also counted
 * unless the database ran it before the fault and its reply was held or lost (a transaction commits
 * only before its deadline; a lost COMMIT's fate is asked), which can only deny more.
 *
 * No mutant here: behind a blackhole's held transaction the batcher sends no call past its deadline,
 * so only the held batch could commit late, within the in-flight bound. The build whose transactions
 * commit past their deadline is caught where the server holds them (lock-held.test.ts, stopped.test.ts).
 *
 * RATEKEEPER_REPORT=1 npx vitest run test/faults-network.test.ts prints the measured table.
 */
import { networkFaultChecks, networkFaults } from '@ratekeeper/store-contract';
import type mysql from 'mysql2/promise';
import { afterAll } from 'vitest';
import { MySqlStore } from '../src/index.js';
import { MYSQL_URL, createPool, describeMySql, dropTable, poolOn, table as tableFor } from './support/db.js';

const table = tableFor('network');
const DB = new URL(MYSQL_URL);

const pools: mysql.Pool[] = [];
const faults = networkFaults({
  host: DB.hostname,
  port: Number(DB.port),
  label: 'the database',
  storeOn: (port) => {
    const pool = poolOn(port);
    pools.push(pool);
    const store = new MySqlStore({ client: pool, table });
    store.on('failure', () => {});
    return store;
  },
});

afterAll(async () => {
  await faults.close(); // first: a pool ends only once its silent connections are gone
  for (const pool of pools.splice(0)) await pool.end().catch(() => {});
  const admin = createPool(1);
  await dropTable(admin, table);
  await admin.end();
});

describeMySql('network faults between the app and MySQL (DEFAULT options, the README client)', () => {
  networkFaultChecks(faults, { kind: 'mysql2', latency: [100, 50] });
});
