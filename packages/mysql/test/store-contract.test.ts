/**
 * The store contract suite on MySqlStore with default options (the database's clock), on the MariaDB
 * of test/support/db.ts, one table per store: bans, reserve and wait, and concurrency leases: every
 * capability the suite knows. The differential runs on a store with `time: 'client'` (one table),
 * each history one call at a time and, since calls in flight together go in one batch, all at once;
 * its mutants: state in single precision, a booking that ignores those ahead, a peek that starts a
 * ban. The burst is 8 worker processes (./support/worker.mjs, the built package), each with its own
 * pool, on one table, with the mutant without row locks it must catch.
 */
import { type Burst, storeContractSuite } from '@ratekeeper/store-contract';
import { afterAll, beforeAll } from 'vitest';
import { EXPIRED_GRACE_MS, MySqlStore } from '../src/index.js';
import { MYSQL_URL, createPool, describeMySql, dropTable, table } from './support/db.js';
import { type MutantName, mutantBuild } from './support/mutant-builds.js';
import { WorkerPool } from './support/workers.js';

const pool = createPool(10);
const tables: string[] = [];
let made = 0;
let workers: WorkerPool;

beforeAll(() => {
  workers = new WorkerPool(8);
});

afterAll(async () => {
  workers?.close();
  for (const name of tables) await dropTable(pool, name).catch(() => undefined);
  await pool.end();
});

/** tableOf names a new table, dropped after the file. */
function tableOf(what: string): string {
  const name = table(`${what}${made++}`);
  tables.push(name);
  return name;
}

const DIFF = tableOf('diff');

/** client: a store of this package's build, or of a mutant's, deciding at the limiters' clock on the differential's table. */
async function client(mutant?: MutantName): Promise<MySqlStore> {
  const Made = mutant === undefined ? MySqlStore : ((await import(mutantBuild(mutant))) as { MySqlStore: typeof MySqlStore }).MySqlStore;
  return new Made({ client: pool, table: DIFF, time: 'client' });
}

/** burst runs one burst: 8 processes, each with its own pool and a store of default options, on one table. */
function burst(b: Burst, mutant?: MutantName) {
  const requests = Array.from({ length: b.requests }, () => [b.key, 1] as const);
  const setup = { url: MYSQL_URL, table: tableOf('burst'), members: b.members, requests, resetFirst: b.resetFirst, ...(mutant === undefined ? {} : { dist: mutantBuild(mutant) }) };
  return workers.run(Array.from({ length: b.workers }, () => setup));
}

describeMySql('the store contract', () => {
  storeContractSuite('MySqlStore', async () => ({ store: new MySqlStore({ client: pool, table: tableOf('contract') }) }), {
    another: (store) => new MySqlStore({ client: pool, table: (store as MySqlStore).table }),
    differential: {
      store: client,
      graceMs: EXPIRED_GRACE_MS,
      batches: true,
      runs: Number(process.env['RATEKEEPER_DIFF_RUNS'] ?? 15),
      mutants: [
        { what: 'state kept in single precision', mutant: 'lossy-state', history: 'rates' },
        { what: 'a booking that ignores the bookings ahead of it', mutant: 'ledger-unsaved', history: 'bookings', algorithm: 'fixed-window' },
        { what: 'a peek that starts a ban', mutant: 'peek-bans', history: 'bans', algorithm: 'fixed-window' },
      ],
    },
    burst: { run: burst, mutants: [['batches that read without row locks', 'no-lock']] },
  });
});
