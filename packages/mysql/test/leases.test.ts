/**
 * Concurrency leases on MySqlStore across processes: the shared checks (@ratekeeper/store-contract's
 * leaseChecks), four stores on four mysql2 pools standing for four processes, and this package's
 * mutants 'leases-never-expire' and 'renew-ignored'.
 */
import { leaseChecks } from '@ratekeeper/store-contract';
import { afterAll } from 'vitest';
import { DEFAULT_CONCURRENCY_LEASE_TTL_MS, MySqlStore } from '../src/index.js';
import { createPool, describeMySql, dropTable, table } from './support/db.js';
import { mutantBuild } from './support/mutant-builds.js';

const TABLE = table('leases');
const pools = Array.from({ length: 4 }, () => createPool(4));

afterAll(async () => {
  await dropTable(pools[0] as (typeof pools)[number], TABLE);
  for (const pool of pools) await pool.end();
});

leaseChecks({
  describe: describeMySql,
  ttlMs: DEFAULT_CONCURRENCY_LEASE_TTL_MS,
  stores: async (mutant) => {
    const Made = mutant === undefined ? MySqlStore : ((await import(mutantBuild(mutant))) as { MySqlStore: typeof MySqlStore }).MySqlStore;
    return (index) => new Made({ client: pools[index] as (typeof pools)[number], table: TABLE, time: 'client' });
  },
});
