/**
 * Concurrency leases on PostgresStore across processes: the shared checks (@ratekeeper/store-contract's
 * leaseChecks), four stores on four pg Pools standing for four processes, and this package's mutants
 * 'leases-never-expire' and 'renew-ignored'.
 */
import { leaseChecks } from '@ratekeeper/store-contract';
import { afterAll } from 'vitest';
import { DEFAULT_CONCURRENCY_LEASE_TTL_MS, PostgresStore } from '../src/index.js';
import { describeDb, dropTables, pgPool, uniqueTable } from './support/db.js';
import { mutantBuild } from './support/mutant-builds.js';

const TABLE = uniqueTable('leases');
const pools = Array.from({ length: 4 }, () => pgPool({ max: 4 }));

afterAll(async () => {
  for (const pool of pools) await pool.end();
  await dropTables(TABLE);
});

leaseChecks({
  describe: describeDb,
  ttlMs: DEFAULT_CONCURRENCY_LEASE_TTL_MS,
  stores: async (mutant) => {
    const Made = mutant === undefined ? PostgresStore : ((await import(mutantBuild(mutant))) as { PostgresStore: typeof PostgresStore }).PostgresStore;
    return (index) => new Made({ client: pools[index] as (typeof pools)[number], table: TABLE, time: 'client' });
  },
});
