/**
 * The network's faults between the application and PostgreSQL, through the test kit's fault proxy
 * (@ratekeeper/store-contract networkFaults: one request every 10 ms on one key, healthy, under the
 * fault for 1.2 s, then healed), with the README's clients (a pg Pool with an 'error' listener;
 * postgres.js) and PostgresStore's DEFAULT options (timeoutMs 1,000, 'fallback'). What the store does:
 *
 * | fault                   | decisions                                 | bound asserted                          |
 * |-------------------------|-------------------------------------------|-----------------------------------------|
 * | latency 200 ms ± 100 ms | all by the database (slow, answering)     | no fallback                             |
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
import { afterAll } from 'vitest';
import { PostgresStore } from '../src/index.js';
import { type ClientKind, PG, clientOn, describeDb, dropTables, uniqueTable } from './support/db.js';

const table = uniqueTable('network');

const ends: (() => Promise<unknown>)[] = [];
/** faultsWith is the run for `kind`'s client, each store made as the README makes it. */
const faultsWith = (kind: ClientKind) =>
  networkFaults({
    host: PG.host,
    port: PG.port,
    label: 'the database',
    storeOn: (port) => {
      const { client, end } = clientOn(kind, port);
      ends.push(end);
      const store = new PostgresStore({ client, table });
      store.on('failure', () => {});
      return store;
    },
  });
const runs = { pg: faultsWith('pg'), postgres: faultsWith('postgres') };

afterAll(async () => {
  for (const run of Object.values(runs)) await run.close(); // first: a pool ends only once its silent connections are gone
  for (const end of ends.splice(0)) await end();
  await dropTables(table);
});

describeDb('network faults between the app and PostgreSQL (DEFAULT options, the README clients)', () => {
  for (const kind of ['pg', 'postgres'] as const) networkFaultChecks(runs[kind], { kind, latency: [200, 100] });
});
