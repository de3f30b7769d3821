/**
 * A connection the server forgot while a statement was on it (issue 36's half-open fault, made
 * certain: store-contract's forgottenConnection), through both README clients (a pg Pool,
 * postgres.js) with DEFAULT options. The waiting statement (the one-statement decision, which takes no
 * reserved connection: postgres.js's reserve() does not answer on a connection it has to open) is taken
 * for lost once another connection is reset (the next call on another key) or a ping is answered (on
 * the same key, queued behind it) and it stays silent (core's SqlTransactor), and is sent again on
 * another connection: decided by the database within timeoutMs + 1 s of the fault. The
 * mutant that waits for it as for any statement ('forgotten-waited') is still undecided at 2 ×
 * timeoutMs. The mutant's limiter comes from its own core: the one-statement decision is kept for
 * core's own steps, and a limiter of another core's would take a transaction.
 */
import { FixedWindowLimiter } from '@ratekeeper/core';
import { nameHead, rowId } from '@ratekeeper/core/store';
import { closeForgotten, forgottenConnection } from '@ratekeeper/store-contract';
import { afterAll, expect, it } from 'vitest';
import { PostgresStore } from '../src/index.js';
import { type ClientKind, PG, clientOn, describeDb, dropTables, pgPool, uniqueTable } from './support/db.js';
import { mutantBuild } from './support/mutant-builds.js';

const TABLE = uniqueTable('forgotten');
const admin = pgPool({ max: 3 });
const ends: (() => Promise<unknown>)[] = [];

afterAll(async () => {
  await closeForgotten();
  for (const end of ends) await end();
  await admin.end();
  await dropTables(TABLE);
});

const run = (kind: ClientKind, Store: typeof PostgresStore, Limiter: typeof FixedWindowLimiter, next: 'other key' | 'same key') =>
  forgottenConnection({
    next,
    host: PG.host,
    port: PG.port,
    Limiter,
    storeOn: (port, failed) => {
      const { client, end } = clientOn(kind, port);
      ends.push(end);
      const store = new Store({ client, table: TABLE });
      store.on('failure', failed);
      return store;
    },
    hold: async (name, key) => {
      const holder = await admin.connect();
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM "${TABLE}" WHERE k = decode($1, 'hex') FOR UPDATE`, [rowId(nameHead(name), key)]);
      return async () => {
        await holder.query('ROLLBACK');
        holder.release();
      };
    },
    waiting: async () => {
      const { rows } = await admin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1", [`%${TABLE}%`]);
      return (rows[0] as { n: number }).n > 0;
    },
  });

describeDb('a connection the server forgot with a statement on it (DEFAULT options, the README clients)', () => {
  for (const [kind, next] of [
    ['pg', 'other key'],
    ['pg', 'same key'],
    ['postgres', 'other key'],
    ['postgres', 'same key'],
  ] as const) {
    it(`${kind}, next call on the ${next}: takes the silent statement for lost, and decides its call on the database; catches a store that waits for it`, async () => {
      const good = await run(kind, PostgresStore, FixedWindowLimiter, next);
      expect(good).toMatchObject({ settled: 'decided', failures: 0 });
      expect(good.failure).toBeUndefined();
      expect(good.ms).toBeLessThan(1000 + 1000);

      const build = mutantBuild('forgotten-waited');
      const { PostgresStore: Waiting } = (await import(build)) as { PostgresStore: typeof PostgresStore };
      const core = new URL('../node_modules/@ratekeeper/core/dist/esm/index.js', build).href;
      const { FixedWindowLimiter: Limiter } = (await import(core)) as { FixedWindowLimiter: typeof FixedWindowLimiter };
      expect((await run(kind, Waiting, Limiter, next)).settled).toBe('pending');
    });
  }
});
