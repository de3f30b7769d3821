/**
 * An outage that announces itself is not waited for, on MySQL: nothing listens on the database's port
 * (every connection refused), then the port answers nothing, then the database is back; or the
 * application has ended its pool. Through a mysql2/promise pool made as the README makes it, by the
 * test kit's refusedOutageChecks (@ratekeeper/store-contract: what each check proves is there), with
 * the mutant whose probe is a user's call.
 */
import { OUTAGE_TIMEOUT_MS, refusedOutageChecks } from '@ratekeeper/store-contract';
import type mysql from 'mysql2/promise';
import { afterAll } from 'vitest';
import { MySqlStore } from '../src/index.js';
import { MYSQL_URL, createPool, describeMySql, dropTable, poolOn, table as tableFor } from './support/db.js';
import { mutantBuild } from './support/mutant-builds.js';

const table = tableFor('outage');
const DB = new URL(MYSQL_URL);
const pools: mysql.Pool[] = [];

afterAll(async () => {
  for (const pool of pools.splice(0)) await pool.end().catch(() => {}); // a pool whose silent connection was cut ends with that error
  const admin = createPool(1);
  await dropTable(admin, table);
  await admin.end();
});

/** storeAt makes `Store` on a pool made as the README makes it, on `port`. */
function storeAt(Store: typeof MySqlStore, port: number): MySqlStore {
  const pool = poolOn(port);
  pools.push(pool);
  const store = new Store({ client: pool, table, timeoutMs: OUTAGE_TIMEOUT_MS });
  store.on('failure', () => {});
  return store;
}

describeMySql('MySQL refusing connections, or a pool ended: decided at once', () => {
  refusedOutageChecks({
    host: DB.hostname,
    port: Number(DB.port),
    kinds: [
      {
        kind: 'mysql2',
        storeAt: (port) => storeAt(MySqlStore, port),
        ended: () => {
          const pool = createPool();
          const store = new MySqlStore({ client: pool, table, timeoutMs: OUTAGE_TIMEOUT_MS });
          store.on('failure', () => {});
          return { store, end: () => pool.end() };
        },
      },
    ],
    mutantAt: async (port) => storeAt(((await import(mutantBuild('user-probe'))) as typeof import('../src/index.js')).MySqlStore, port),
  });
});
