/**
 * A connection the server forgot while a statement was on it (issue 36's half-open fault, made
 * certain: store-contract's forgottenConnection), with the README's client (a mysql2 pool) and DEFAULT
 * options, the next call on another key (an idle connection is reset) and on the same key (queued
 * behind it: only the store's pings reach the database). The waiting statement is taken for lost once
 * another connection is reset or a ping is answered and it stays silent (core's SqlTransactor), and its
 * batch runs again on a new connection: decided by the database within timeoutMs + 1 s of the fault. The mutant that waits for it as for any statement
 * ('forgotten-waited') is still undecided at 2 × timeoutMs (it would fall back at MAX_WAIT_FACTOR ×
 * timeoutMs, while the database answers every other call). CI once saw the network-fault harness's
 * half-open check (faults-network.test.ts) take 10,016 ms for this case, when a statement happened to
 * be on the wire at the fault.
 */
import { nameHead, rowId } from '@ratekeeper/core/store';
import { closeForgotten, forgottenConnection } from '@ratekeeper/store-contract';
import type mysql from 'mysql2/promise';
import { afterAll, expect, it } from 'vitest';
import { MySqlStore } from '../src/index.js';
import { MYSQL_URL, createPool, describeMySql, dropTable, poolOn, table } from './support/db.js';
import { mutantBuild } from './support/mutant-builds.js';

const TABLE = table('forgotten');
const DB = new URL(MYSQL_URL);
const admin = createPool(3);
const pools: mysql.Pool[] = [];

afterAll(async () => {
  await closeForgotten();
  for (const pool of pools) await pool.end().catch(() => {});
  await dropTable(admin, TABLE).catch(() => undefined);
  await admin.end();
});

const run = (Store: typeof MySqlStore, next: 'other key' | 'same key') =>
  forgottenConnection({
    next,
    host: DB.hostname,
    port: Number(DB.port),
    storeOn: (port, failed) => {
      const pool = poolOn(port);
      pools.push(pool);
      const store = new Store({ client: pool, table: TABLE });
      store.on('failure', failed);
      return store;
    },
    hold: async (name, key) => {
      const holder = await admin.getConnection();
      await holder.query('START TRANSACTION');
      await holder.query(`SELECT 1 FROM \`${TABLE}\` WHERE k = UNHEX(?) FOR UPDATE`, [rowId(nameHead(name), key)]);
      return async () => {
        await holder.query('ROLLBACK');
        holder.release();
      };
    },
    waiting: async () => {
      const [rows] = await admin.query("SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE command = 'Query' AND info LIKE ?", [`%INTO \`${TABLE}\`%`]);
      return Number((rows as { n: number }[])[0]?.n) > 0;
    },
  });

describeMySql('a connection the server forgot with a statement on it (DEFAULT options, the README client)', () => {
  for (const next of ['other key', 'same key'] as const) {
    it(`next call on the ${next}: takes the silent statement for lost, and decides its call on the database; catches a store that waits for it`, async () => {
      const good = await run(MySqlStore, next);
      expect(good).toMatchObject({ settled: 'decided', failures: 0 });
      expect(good.failure).toBeUndefined();
      expect(good.ms).toBeLessThan(1000 + 1000);

      const { MySqlStore: Waiting } = (await import(mutantBuild('forgotten-waited'))) as { MySqlStore: typeof MySqlStore };
      expect((await run(Waiting, next)).settled).toBe('pending');
    });
  }
});
