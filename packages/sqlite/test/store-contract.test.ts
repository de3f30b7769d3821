/**
 * The store contract suite on SqliteStore with default options, on a file in a temporary directory:
 * every capability the suite knows. A SqliteStore always decides at the limiters' clock, so the
 * differential runs on a store of default options too (its mutant: state kept in single precision);
 * the burst is 8 worker processes (./support/worker.mjs, the built package) on one file, with the two
 * non-atomic mutants it must catch. The suite runs on Bun too (./bun.test.ts).
 */
import { afterAll, beforeAll } from 'vitest';
import { type Burst, storeContractSuite } from '@ratekeeper/store-contract';
import { EXPIRED_GRACE_MS, SqliteStore } from '../src/index.js';
import { tempDir } from './support/files.js';
import { type MutantName, mutantBuild } from './support/mutant-builds.js';
import { WorkerPool } from './support/workers.js';

const dir = tempDir();
const stores: SqliteStore[] = [];
let pool: WorkerPool;

beforeAll(() => {
  pool = new WorkerPool(8);
});

afterAll(() => {
  pool?.close();
  for (const store of stores) store.close();
  dir.remove();
});

/** made keeps a store to close after the file's tests. */
function made(store: SqliteStore): SqliteStore {
  stores.push(store);
  return store;
}

/** storeOf: a store of this package's build, or of a mutant's, on a file of its own. */
async function storeOf(mutant?: MutantName): Promise<SqliteStore> {
  const Made = mutant === undefined ? SqliteStore : ((await import(mutantBuild(mutant))) as { SqliteStore: typeof SqliteStore }).SqliteStore;
  return made(new Made({ path: dir.file() }));
}

/**
 * Each runtime's default driver: the suite runs on Node (Vitest: better-sqlite3, or node:sqlite on a
 * Node the workspace's better-sqlite3 addon was not built for, as in scripts/test-node.sh) and on Bun
 * (./bun.test.ts: bun:sqlite).
 */
const DRIVER = loadDriverName();

/** burst runs one burst on a new file: every worker a process of its own with its own connection, on the runtime's default driver. */
async function burst(b: Burst, mutant?: MutantName) {
  const path = dir.file();
  const requests = Array.from({ length: b.requests }, () => [b.key, 1] as const);
  const setup = { path, members: b.members, requests, resetFirst: b.resetFirst, ...(mutant === undefined ? {} : { dist: mutantBuild(mutant) }) };
  const reports = await pool.run(Array.from({ length: b.workers }, () => setup));
  const drivers = [...new Set(reports.map((r) => r.driver))];
  if (drivers.length !== 1 || drivers[0] !== DRIVER) throw new Error(`the workers ran on ${drivers.join(', ')}, not on this runtime's default driver ${DRIVER}`);
  return reports;
}

storeContractSuite(
  'SqliteStore',
  async () => {
    const store = made(new SqliteStore({ path: dir.file() }));
    return { store };
  },
  {
    another: (store) => made(new SqliteStore({ path: (store as SqliteStore).path })),
    differential: {
      store: (mutant?: MutantName) => storeOf(mutant),
      graceMs: EXPIRED_GRACE_MS,
      runs: Number(process.env['RATEKEEPER_DIFF_RUNS'] ?? 40),
      mutants: [{ what: 'state kept in single precision', mutant: 'lossy-state', history: 'rates' }],
    },
    burst: {
      run: burst,
      mutants: [
        ['a deferred transaction', 'deferred-transaction'],
        ['a read and a write outside one transaction', 'no-transaction'],
      ],
    },
  },
);

function loadDriverName(): string {
  const store = new SqliteStore({ path: dir.file() });
  const name = store.driver;
  store.close();
  return name;
}
