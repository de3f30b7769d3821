/**
 * The store contract suite on PostgresStore with default options (the database's clock), through a pg
 * Pool and through postgres.js, one table per store: bans included (BanLimiter over `banned`, for
 * every algorithm), reservations and concurrency leases: every capability the suite knows. The
 * differential runs on a store with `time: 'client'` through each client, each history one call at a
 * time and, since calls in flight together go in one batch, all at once; through pg, its mutants:
 * state in single precision, a booking that does not keep its ledger, a peek that starts a ban. The
 * burst (once, with the pg suite) is 8 worker processes (./support/worker.mjs, the built package), the
 * even ones on pg Pools, the odd ones on postgres.js, on one table, with the mutant without row locks
 * it must catch (within 5 bursts: a loaded machine can stagger the workers' first batches).
 */
import { type Burst, storeContractSuite } from '@ratekeeper/store-contract';
import { afterAll, beforeAll } from 'vitest';
import { EXPIRED_GRACE_MS, PostgresStore } from '../src/index.js';
import { type Client, type ClientKind, describeDb, dropTables, makeClient, uniqueTable } from './support/db.js';
import { type MutantName, mutantBuild } from './support/mutant-builds.js';
import { WorkerPool } from './support/workers.js';

const clients = new Map<ClientKind, Client>();
const tables: string[] = [];
const RUNS = Number(process.env['RATEKEEPER_DIFF_RUNS'] ?? 25);
let workers: WorkerPool;

beforeAll(() => {
  workers = new WorkerPool(8);
});

afterAll(async () => {
  workers?.close();
  for (const client of clients.values()) await client.end();
  for (const table of tables) await dropTables(table);
});

function clientOf(kind: ClientKind): unknown {
  if (!clients.has(kind)) clients.set(kind, makeClient(kind));
  return (clients.get(kind) as Client).client;
}

function tableOf(label: string): string {
  const table = uniqueTable(label);
  tables.push(table);
  return table;
}

/** storeOf: a store deciding at the limiters' clock through `kind`, of this package's build or of a mutant's. */
async function storeOf(kind: ClientKind, table: string, mutant?: MutantName): Promise<PostgresStore> {
  const Made = mutant === undefined ? PostgresStore : ((await import(mutantBuild(mutant))) as { PostgresStore: typeof PostgresStore }).PostgresStore;
  return new Made({ client: clientOf(kind) as never, table, time: 'client' });
}

/** burst runs one burst: 8 processes, each with its own client and a store of default options, on one table. */
function burst(b: Burst, mutant?: MutantName) {
  const table = tableOf('burst');
  const requests = Array.from({ length: b.requests }, () => [b.key, 1] as const);
  return workers.run(
    Array.from({ length: b.workers }, (_, i) => ({
      table,
      client: i % 2 === 0 ? ('pg' as const) : ('postgres' as const),
      members: b.members,
      requests,
      resetFirst: b.resetFirst,
      ...(mutant === undefined ? {} : { dist: mutantBuild(mutant) }),
    })),
  );
}

describeDb('the store contract', () => {
  for (const kind of ['pg', 'postgres'] as const) {
    const diff = tableOf('diff');
    storeContractSuite(`PostgresStore (${kind})`, async () => ({ store: new PostgresStore({ client: clientOf(kind) as never, table: tableOf('contract') }) }), {
      another: (store) => new PostgresStore({ client: clientOf(kind) as never, table: (store as PostgresStore).table }),
      differential: {
        store: (mutant?: MutantName) => storeOf(kind, diff, mutant),
        graceMs: EXPIRED_GRACE_MS,
        batches: true,
        runs: kind === 'pg' ? RUNS : Math.ceil(RUNS / 2),
        mutants:
          kind === 'pg'
            ? [
                { what: 'state kept in single precision', mutant: 'lossy-state', history: 'rates' },
                { what: 'a booking that does not keep its ledger', mutant: 'ledger-unsaved', history: 'bookings', algorithm: 'fixed-window' },
                { what: 'a peek that starts a ban', mutant: 'peek-bans', history: 'bans', algorithm: 'fixed-window' },
              ]
            : [],
      },
      burst:
        kind === 'pg'
          ? { run: burst, tries: 5, mutants: [['rows read without a lock', 'no-lock']] }
          : { skip: 'run once, with the pg suite: its workers alternate pg Pools and postgres.js' },
    });
  }
});
