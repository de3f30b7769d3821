/**
 * A stopped database, on a MariaDB server of the test's own: hung (SIGSTOP), then going on (SIGCONT),
 * then crashed (SIGKILL) and restarted. A MySqlStore of DEFAULT options (timeout 1 s, 'fallback'):
 *
 * - hung: the calls in flight are decided by the fallback within the bound (about timeoutMs after the
 *   server's last answer; here under 3 s) and reported as 'timeout'; the transactions they had sent
 *   reach the server when it goes on, past their deadlines, and commit nothing;
 * - crashed: calls are decided by the fallback at once (the connection is refused), and after the
 *   restart the store decides on the database again;
 * - throughout, the table holds exactly the admissions the database decided (those without a failure
 *   mark), never one the fallback also decided. A mutant whose commit ignores the deadline commits the
 *   hung calls when the server goes on, and the same check catches it.
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
  const table = `rkt_stopped_${runs++}`;
  const { store, failures, admin, end } = storeOn(server, Store, table);
  const limiter = new FixedWindowLimiter({ store, limit: 1_000, windowMs: 3_600_000, name: 'stopped' });
  let byDatabase = 0;
  const consume = async () => {
    const d = await limiter.consume('k');
    if (d.allowed && d.failure === undefined) byDatabase++;
    return d;
  };
  for (let i = 0; i < 3; i++) await consume();

  server.signal('SIGSTOP');
  const hungAt = performance.now();
  const hung = await Promise.all(Array.from({ length: 10 }, consume));
  const hungMs = performance.now() - hungAt;
  server.signal('SIGCONT');
  // Until the database decides again (the breaker closes at a probe's answer).
  for (let i = 0; i < 200 && (await consume()).failure !== undefined; i++) await new Promise((r) => setTimeout(r, 50));

  server.signal('SIGKILL');
  await server.exited();
  const crashed = await consume();
  await server.start();
  for (let i = 0; i < 200 && (await consume()).failure !== undefined; i++) await new Promise((r) => setTimeout(r, 50));

  const count = await countOf(admin, table, 'stopped', 'k');
  await end();
  return { hung, hungMs, crashed, failures, byDatabase, count };
}

describeMySql('a stopped database (own server: SIGSTOP, SIGCONT, SIGKILL, restart)', () => {
  it.skipIf(!hasServerBinaries)('falls back within the bound, recovers, and the table holds exactly what the database decided', async () => {
    const { hung, hungMs, crashed, failures, byDatabase, count } = await run(MySqlStore);
    expect(hung.map((d) => d.failure)).toEqual(Array(10).fill('fallback'));
    expect(hungMs).toBeLessThan(3_000);
    expect(failures.some((f) => f.reason === 'timeout')).toBe(true);
    expect(crashed.failure).toBe('fallback');
    expect(count).toBe(byDatabase);
  });

  it.skipIf(!hasServerBinaries)('catches a store whose commit ignores the deadline', async () => {
    const { MySqlStore: Late } = (await import(mutantBuild('commit-past-deadline'))) as { MySqlStore: typeof MySqlStore };
    const { byDatabase, count } = await run(Late);
    expect(count).toBeGreaterThan(byDatabase);
  });
});
