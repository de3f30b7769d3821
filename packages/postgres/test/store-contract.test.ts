/**
 * The store contract suite on PostgresStore with default options (the database's clock), through a pg
 * Pool and through postgres.js, one table per store: bans included (BanLimiter over `banned`, for
 * every algorithm), reservations and concurrency leases: every capability the suite knows.
 */
import { storeContractSuite } from '@ratekeeper/store-contract';
import { afterAll } from 'vitest';
import { PostgresStore } from '../src/index.js';
import { type Client, type ClientKind, describeDb, makeClient, pgPool, uniqueTable } from './support/db.js';

const clients = new Map<ClientKind, Client>();
const tables: string[] = [];

afterAll(async () => {
  for (const client of clients.values()) await client.end();
  const admin = pgPool({ max: 1 });
  for (const table of tables) await admin.query(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
  await admin.end();
});

describeDb('the store contract', () => {
  for (const kind of ['pg', 'postgres'] as const) {
    storeContractSuite(
      `PostgresStore (${kind})`,
      async () => {
        if (!clients.has(kind)) clients.set(kind, makeClient(kind));
        const table = uniqueTable('contract');
        tables.push(table);
        return { store: new PostgresStore({ client: clients.get(kind)!.client as never, table }) };
      },
      {},
    );
  }
});
