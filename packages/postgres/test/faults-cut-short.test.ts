/**
 * Transactions cut short after their first statement: for 2.5 × timeoutMs every batch of the store
 * has its locks granted (`BEGIN; … lock`), then dies before its COMMIT or ROLLBACK (its connection
 * killed with pg_terminate_backend just before they are sent), and so do the store's pings
 * (`SELECT 1`); what the store asks about a lost COMMIT gets through (the transaction aborted: the
 * batch runs again). The database is working all along (it grants every lock and answers every
 * question), so with DEFAULT options it is waited for: every call is decided by the database once
 * the storm passes, exactly the limit admitted, no failure. (The killed-connections suite's storm on a
 * loaded CI machine, where most transactions are killed before their COMMIT, made sure.) A mutant
 * whose store does not tell core's Remote of those answers ('alive-ignored') hears only silence and
 * fails the calls by timeout in the same harness (its storm lasts until then, at most 8 × timeoutMs).
 */
import { FixedWindowLimiter } from '@ratekeeper/core';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { PG, describeDb, dropTables, uniqueTable } from './support/db.js';
import { mutantBuild } from './support/mutant-builds.js';

const LIMIT = 20;
const STORM_MS = 2500; // 2.5 × the default timeoutMs
/** The mutant's storm lasts until its first failure, or 8 × timeoutMs (a loaded machine's own lateness is not silence). */
const MUTANT_STORM_MS = 8000;
const table = uniqueTable('cut');
const admin = new pg.Pool({ ...PG, max: 2 });

afterAll(async () => {
  await admin.end();
  await dropTables(table);
});

type Query = (text: string) => Promise<unknown>;

/** run makes 2 × LIMIT concurrent calls on one key during a storm, with the given build's store; it answers what they got and how many connections died. */
async function run(build: string, key: string, stormMs: number): Promise<{ admitted: number; failures: string[]; killed: number }> {
  const { PostgresStore } = (await import(build)) as typeof import('../src/index.js');
  const pool = new pg.Pool(PG);
  pool.on('error', () => {});
  let stormUntil = 0;
  let killed = 0;
  // Each connection the pool makes kills itself before a COMMIT, a ROLLBACK or a ping, during the storm.
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as unknown as Query;
    (client as unknown as { query: Query }).query = async (text) => {
      if (performance.now() < stormUntil && (text.endsWith('; COMMIT') || text === 'ROLLBACK' || text === 'SELECT 1')) {
        await admin.query('SELECT pg_terminate_backend($1)', [(client as unknown as { processID: number }).processID]);
        killed++;
      }
      return query(text);
    };
  });
  const store = new PostgresStore({ client: pool, table });
  const failures: string[] = [];
  store.on('failure', (info) => {
    failures.push(info.reason);
    stormUntil = 0; // the storm has made its point
  });
  const limiter = new FixedWindowLimiter({ store, limit: LIMIT, windowMs: 1e12 });
  try {
    await limiter.peek(key); // the table made and the server's clock learned before the storm
    stormUntil = performance.now() + stormMs;
    const decisions = await Promise.all(Array.from({ length: 2 * LIMIT }, () => limiter.consume(key)));
    return { admitted: decisions.filter((d) => d.allowed).length, failures, killed };
  } finally {
    await pool.end();
  }
}

describeDb('transactions cut short after their first statement', () => {
  it('waits the storm out: every call decided by the database, exactly the limit, no failure (DEFAULT options)', async () => {
    const { admitted, failures, killed } = await run(new URL('../src/index.js', import.meta.url).href, 'cut-good', STORM_MS);
    expect(killed).toBeGreaterThan(10);
    expect(failures).toEqual([]);
    expect(admitted).toBe(LIMIT);
  });

  it("catches a store that does not tell core's Remote the database answered along the way (mutant alive-ignored)", async () => {
    const { failures } = await run(mutantBuild('alive-ignored'), 'cut-mutant', MUTANT_STORM_MS);
    expect(failures).toContain('timeout');
  });
});
