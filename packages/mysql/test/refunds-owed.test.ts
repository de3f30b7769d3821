/**
 * Refunds sent during an outage are not lost (issue 31, item 10), on a MariaDB server of the test's
 * own, crashed (SIGKILL) and restarted. A MySqlStore of DEFAULT options admits 6 on a fixed window of
 * 10, all by the database; the server dies; 4 refunds are sent (each reported: the database could not
 * take it) and are owed to the database by the kit; the server comes back; the breaker's probe (a
 * background SELECT 1, never a user's call) is answered, and its answer sends the refunds again, ahead
 * of every later call. So the first peek the database decides finds them taken: the table holds 2, and
 * the key has 7 left for a peek. The mutant that gives a failed refund to the fallback only ('refund-dropped')
 * leaves the table at 6.
 */
import { FixedWindowLimiter } from '@ratekeeper/core';
import { expect, it } from 'vitest';
import { MySqlStore } from '../src/index.js';
import { countOf, describeMySql } from './support/db.js';
import { mutantBuild } from './support/mutant-builds.js';
import { hasServerBinaries, ownServer, storeOn } from './support/server.js';

const server = ownServer();
let runs = 0;

async function run(Store: typeof MySqlStore) {
  const table = `rkt_owed_${runs++}`;
  const { store, failures, admin, end } = storeOn(server, Store, table);
  const limiter = new FixedWindowLimiter({ store, limit: 10, windowMs: 1e12, name: 'owed' });
  const before = [];
  for (let i = 0; i < 6; i++) before.push(await limiter.consume('k'));

  server.signal('SIGKILL');
  await server.exited();
  for (let i = 0; i < 4; i++) await limiter.refund('k', 1);
  const duringOutage = failures.map((f) => f.operation);
  await server.start();
  // The breaker's probe goes no sooner than probeIntervalMs after the last failure: until its answer a peek is decided at once, by policy.
  let probe = await limiter.peek('k');
  for (let i = 0; i < 100_000 && probe.failure !== undefined; i++) probe = await new Promise((resolve) => setImmediate(() => resolve(limiter.peek('k'))));
  const after = await limiter.peek('k');
  const count = await countOf(admin, table, 'owed', 'k');
  await end();
  return { before, duringOutage, probe, after, count };
}

describeMySql('refunds sent while the database is down (own server: SIGKILL, restart)', () => {
  it.skipIf(!hasServerBinaries)('are owed to the database and taken when it answers again, ahead of later calls', async () => {
    const { before, duringOutage, probe, after, count } = await run(MySqlStore);
    expect(before.map((d) => [d.allowed, d.failure])).toEqual(Array(6).fill([true, undefined]));
    expect(duringOutage).toEqual(['refund', 'refund', 'refund', 'refund']);
    expect([probe.failure, probe.remaining]).toEqual([undefined, 7]);
    expect([after.failure, after.remaining]).toEqual([undefined, 7]);
    expect(count).toBe(2);
  });

  it.skipIf(!hasServerBinaries)('catches a store that gives a failed refund to the fallback only', async () => {
    const { MySqlStore: Dropped } = (await import(mutantBuild('refund-dropped'))) as { MySqlStore: typeof MySqlStore };
    const { after, count } = await run(Dropped);
    expect([after.failure, after.remaining]).toEqual([undefined, 3]);
    expect(count).toBe(6);
  });
});
