/**
 * A connection the server forgot while a statement was on it (issue 36's half-open fault, made
 * certain): a store of DEFAULT options on the README's client (a mysql2 pool) through the test kit's
 * fault proxy has one call waiting on a row another session locks, and an idle connection beside it.
 * The proxy forgets both (the server drops them: nothing comes back, and the next write on one is
 * reset); the lock is let go. The next call takes the idle connection, whose write is reset: that
 * lost connection makes the waiting statement suspect (core's SqlTransactor), which then, silent for
 * twice the lock wait bound, is taken for lost too and its batch runs again on a new connection:
 * decided by the database, within timeoutMs + 0.5 s of the fault. The mutant that waits for it as for
 * any statement ('forgotten-waited') hears no reply: its call is still undecided at 2 × timeoutMs (it
 * would fall back at MAX_WAIT_FACTOR × timeoutMs, while the database answers every other call).
 *
 * CI once saw the harness's half-open check (faults-network.test.ts) take 10,016 ms for this case,
 * when a statement happened to be on the wire at the fault.
 */
import { FixedWindowLimiter } from '@ratekeeper/core';
import { nameHead, rowId } from '@ratekeeper/core/store';
import { type FaultProxy, faultProxy } from '@ratekeeper/store-contract';
import type mysql from 'mysql2/promise';
import { afterAll, expect, it } from 'vitest';
import { type FailureInfo, MySqlStore } from '../src/index.js';
import { MYSQL_URL, createPool, describeMySql, dropTable, poolOn, table } from './support/db.js';
import { mutantBuild } from './support/mutant-builds.js';

const TABLE = table('forgotten');
const DB = new URL(MYSQL_URL);
const admin = createPool(3);
const pools: mysql.Pool[] = [];
const proxies: FaultProxy[] = [];
let runs = 0;

afterAll(async () => {
  for (const proxy of proxies) await proxy.close();
  for (const pool of pools) await pool.end().catch(() => {});
  await dropTable(admin, TABLE).catch(() => undefined);
  await admin.end();
});

/** waitingOnServer tells whether a store's statement on the table is running on the server now (waiting for the held row). */
async function waitingOnServer(): Promise<boolean> {
  const [rows] = await admin.query("SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE command = 'Query' AND info LIKE ?", [`%INTO \`${TABLE}\`%`]);
  return Number((rows as { n: number }[])[0]?.n) > 0;
}

/** run forgets a connection with a statement on it, as above, and answers how the waiting call ended and when. */
async function run(Store: typeof MySqlStore) {
  const proxy = await faultProxy(DB.hostname, Number(DB.port));
  proxies.push(proxy);
  const pool = poolOn(proxy.port);
  pools.push(pool);
  const store = new Store({ client: pool, table: TABLE });
  const failures: FailureInfo[] = [];
  store.on('failure', (info) => failures.push(info));
  const name = `forgotten-${runs++}`;
  const limiter = new FixedWindowLimiter({ store, limit: 100, windowMs: 1e12, name });
  // Both rows made first: a row made while another session holds a lock could wait on that lock's gap.
  for (const key of ['held', 'other']) expect((await limiter.consume(key)).failure).toBeUndefined();

  const holder = await admin.getConnection();
  await holder.query('START TRANSACTION');
  await holder.query(`SELECT 1 FROM \`${TABLE}\` WHERE k = UNHEX(?) FOR UPDATE`, [rowId(nameHead(name), 'held')]);
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

describeMySql('a connection the server forgot with a statement on it (DEFAULT options, the README client)', () => {
  it('takes the silent statement for lost once another connection is reset, and decides its call on the database; catches a store that waits for it', async () => {
    const good = await run(MySqlStore);
    expect(good.settled).toBe('decided');
    expect(good.failure).toBeUndefined();
    expect(good.failures).toEqual([]);
    expect(good.ms).toBeLessThan(1000 + 500);

    const { MySqlStore: Waiting } = (await import(mutantBuild('forgotten-waited'))) as { MySqlStore: typeof MySqlStore };
    const mutant = await run(Waiting);
    expect(mutant.settled).toBe('pending');
  });
});
