/**
 * An outage that announces itself is not waited for, on PostgreSQL: nothing listens on the database's
 * port (every connection refused), then the port answers nothing, then the database is back; or the
 * application has ended its pool. Through a pg Pool and through postgres.js made as the README makes
 * them, by the test kit's refusedOutageChecks (@ratekeeper/store-contract: what each check proves is
 * there), with the mutant whose probe is a user's call.
 */
import { OUTAGE_TIMEOUT_MS, refusedOutageChecks } from '@ratekeeper/store-contract';
import { afterAll } from 'vitest';
import { PostgresStore } from '../src/index.js';
import { type ClientKind, PG, clientOn, describeDb, dropTables, makeClient, uniqueTable } from './support/db.js';
import { mutantBuild } from './support/mutant-builds.js';

const table = uniqueTable('outage');
const ends: (() => Promise<unknown>)[] = [];

afterAll(async () => {
  for (const end of ends.splice(0)) await end();
  await dropTables(table);
});

/** storeAt makes `Store` on `kind`'s client as the README makes it, on `port`. */
function storeAt(Store: typeof PostgresStore, kind: ClientKind, port: number): PostgresStore {
  const { client, end } = clientOn(kind, port);
  ends.push(end);
  const store = new Store({ client, table, timeoutMs: OUTAGE_TIMEOUT_MS });
  store.on('failure', () => {});
  return store;
}

describeDb('PostgreSQL refusing connections, or a pool ended: decided at once', () => {
  refusedOutageChecks({
    host: PG.host,
    port: PG.port,
    kinds: (['pg', 'postgres'] as const).map((kind) => ({
      kind,
      storeAt: (port) => storeAt(PostgresStore, kind, port),
      ended: () => {
        const { client, end } = makeClient(kind);
        const store = new PostgresStore({ client, table, timeoutMs: OUTAGE_TIMEOUT_MS });
        store.on('failure', () => {});
        return { store, end };
      },
    })),
    mutantAt: async (port) => storeAt(((await import(mutantBuild('user-probe'))) as typeof import('../src/index.js')).PostgresStore, 'pg', port),
  });
});
