/**
 * The store contract suite on MySqlStore with default options (the database's clock), on the MariaDB
 * of test/support/db.ts, one table per store: bans, reserve and wait, and concurrency leases: every
 * capability the suite knows.
 */
import { storeContractSuite } from '@ratekeeper/store-contract';
import { afterAll } from 'vitest';
import { MySqlStore } from '../src/index.js';
import { createPool, describeMySql, dropTable, table } from './support/db.js';

const pool = createPool(10);
const tables: string[] = [];
let made = 0;

afterAll(async () => {
  for (const name of tables) await dropTable(pool, name).catch(() => undefined);
  await pool.end();
});

describeMySql('the store contract', () => {
  storeContractSuite(
    'MySqlStore',
    async () => {
      const name = table(`contract${made++}`);
      tables.push(name);
      return { store: new MySqlStore({ client: pool, table: name }) };
    },
    {},
  );
});
