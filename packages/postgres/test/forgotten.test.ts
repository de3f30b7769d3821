/**
 * A connection the server forgot while a statement was on it (issue 36's half-open fault, made
 * certain), through both README clients (a pg Pool, postgres.js) and the test kit's fault proxy, with
 * DEFAULT options: one call's statement (the one-statement decision, which takes no reserved
 * connection: postgres.js's reserve() does not answer on a connection it has to open) waits on a row another session
 * locks, beside an idle connection. The proxy forgets both (nothing comes back, and the next write on
 * one is reset); the lock is let go. The next call takes the idle connection, whose write is reset:
 * that lost connection makes the waiting statement suspect (core's SqlTransactor), which, silent for
 * twice the lock wait bound, is taken for lost too and sent again on another connection: decided by
 * the database, within timeoutMs + 0.5 s of the fault. The mutant that waits for it as for any
 * statement ('forgotten-waited') hears no reply: its call is still undecided at 2 × timeoutMs (it would
 * fall back at MAX_WAIT_FACTOR × timeoutMs, while the database answers every other call).
 */
import { FixedWindowLimiter } from '@ratekeeper/core';
import { nameHead, rowId } from '@ratekeeper/core/store';
import { type FaultProxy, faultProxy } from '@ratekeeper/store-contract';
import { afterAll, expect, it } from 'vitest';
import { type FailureInfo, PostgresStore } from '../src/index.js';
import { type ClientKind, PG, clientOn, describeDb, dropTables, pgPool, uniqueTable } from './support/db.js';
import { mutantBuild } from './support/mutant-builds.js';

const TABLE = uniqueTable('forgotten');
const admin = pgPool({ max: 3 });
const ends: (() => Promise<unknown>)[] = [];
const proxies: FaultProxy[] = [];
let runs = 0;

afterAll(async () => {
  for (const proxy of proxies) await proxy.close();
  for (const end of ends) await end();
  await admin.end();
  await dropTables(TABLE);
});

/** waitingOnServer tells whether a store's statement (the one-statement decision or a transaction) waits for a row lock on the server now. */
async function waitingOnServer(): Promise<boolean> {
  const { rows } = await admin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1", [`%${TABLE}%`]);
  return (rows[0] as { n: number }).n > 0;
}

/** run forgets a connection with a statement on it, as above, and answers how the waiting call ended and when. */
async function run(kind: ClientKind, Store: typeof PostgresStore, Limiter: typeof FixedWindowLimiter) {
  const proxy = await faultProxy(PG.host, PG.port);
  proxies.push(proxy);
  const { client, end } = clientOn(kind, proxy.port);
  ends.push(end);
  const store = new Store({ client, table: TABLE });
  const failures: FailureInfo[] = [];
  store.on('failure', (info) => failures.push(info));
  const name = `forgotten-${runs++}`;
  const limiter = new Limiter({ store, limit: 100, windowMs: 1e12, name });
  for (const key of ['held', 'other']) expect((await limiter.consume(key)).failure).toBeUndefined();

  const holder = await admin.connect();
  await holder.query('BEGIN');
  await holder.query(`SELECT 1 FROM "${TABLE}" WHERE k = decode($1, 'hex') FOR UPDATE`, [rowId(nameHead(name), 'held')]);
  const waiting = limiter.consume('held');
  while (!(await waitingOnServer())) await new Promise((resolve) => setImmediate(resolve));
  // A second connection, idle beside the waiting one (sent once the first is on the server: calls made in one turn share a transaction).
  expect((await limiter.consume('other')).failure).toBeUndefined();

  const faultAt = performance.now();
  proxy.halfOpen();
  const next = limiter.consume('other');
  await holder.query('ROLLBACK');
  holder.release();
  expect((await next).failure).toBeUndefined();

  const bound = 2 * store.timeoutMs;
  const ended = await Promise.race([waiting.then((d) => ({ d })), new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), bound - (performance.now() - faultAt)))]);
  const ms = performance.now() - faultAt;
  return ended === undefined ? { settled: 'pending', ms, failures } : { settled: 'decided', failure: ended.d.failure, ms, failures };
}

describeDb('a connection the server forgot with a statement on it (DEFAULT options, the README clients)', () => {
  for (const kind of ['pg', 'postgres'] as const) {
    it(`${kind}: takes the silent statement for lost once another connection is reset, and decides its call on the database; catches a store that waits for it`, async () => {
      const good = await run(kind, PostgresStore, FixedWindowLimiter);
      expect(good).toMatchObject({ settled: 'decided', failure: undefined, failures: [] });
      expect(good.ms).toBeLessThan(1000 + 500);

      const build = mutantBuild('forgotten-waited');
      const { PostgresStore: Waiting } = (await import(build)) as { PostgresStore: typeof PostgresStore };
      // The mutant's limiter from its own core: the one-statement decision is kept for core's own steps.
      const core = new URL('../node_modules/@ratekeeper/core/dist/esm/index.js', build).href;
      const { FixedWindowLimiter: Limiter } = (await import(core)) as { FixedWindowLimiter: typeof FixedWindowLimiter };
      const mutant = await run(kind, Waiting, Limiter);
      expect(mutant.settled).toBe('pending');
    });
  }
});
