/**
 * Connections killed mid-burst: 8 worker processes (pg Pools) with DEFAULT options make 2,000
 * requests each at once on one key with a limit of 500 while this process kills one of their
 * connections every few milliseconds, from the moment they start (pg_terminate_backend, picked at
 * random among theirs: mid-lock, mid-apply, idle in the pool, while connecting; and every other kill
 * one past its lock step, when there is one). Exactly 500 are admitted, with no failure and no
 * fallback decision: a transaction whose connection died before its COMMIT was sent runs again, and
 * one whose COMMIT reply was lost has its fate asked of the database (`fate` in src/dialect.ts: txid_status, asked by core's SqlTransactor).
 * A mutant that hands a lost COMMIT reply to the failure policy instead ('lost-commit-fails') decides
 * some calls both in the database and in the fallback, and over-admits in the same harness.
 *
 * pg only: postgres.js 3.4.9 itself leaves rejected promises unhandled when its connections are
 * terminated (reproduced with plain `sql.unsafe` calls inside try/catch), which would crash a worker
 * whatever the store does; see the README.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PG, describeDb, dropTables, uniqueTable } from './support/db.js';
import { failuresOf } from '@ratekeeper/store-contract';
import { mutantBuild } from './support/mutant-builds.js';
import { type MemberSpec, WorkerPool, type WorkerReport, totalAdmitted } from './support/workers.js';

const WORKERS = 8;
const REQUESTS = 2000;
const LIMIT = 500;
const KILL_EVERY_MS = 5;
const KILL_ANY = 'SELECT pg_terminate_backend(pid) AS k FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid() ORDER BY random() LIMIT 1';
const KILL_COMMITTING = `SELECT pg_terminate_backend(pid) AS k FROM pg_stat_activity WHERE application_name = $1 AND (state = 'idle in transaction' OR (state = 'active' AND query LIKE '%; COMMIT')) ORDER BY random() LIMIT 1`;
const SPEC: MemberSpec = { algorithm: 'fixed-window', limit: LIMIT, windowMs: 1e12 };
const table = uniqueTable('killed');
const appName = `rk-killed-${process.pid}`;
let pool: WorkerPool;
let admin: pg.Pool;
let runs = 0;

beforeAll(() => {
  pool = new WorkerPool(WORKERS);
  admin = new pg.Pool({ ...PG, max: 1 });
});

afterAll(async () => {
  pool?.close();
  await admin?.end();
  await dropTables(table);
});

/** burst runs one burst while killing the workers' connections; it answers the reports and the number of kills. */
async function burst(members: readonly MemberSpec[], dist?: string): Promise<{ reports: WorkerReport[]; kills: number }> {
  const key = `killed-${runs++}`;
  const requests = Array.from({ length: REQUESTS }, () => [key, 1] as const);
  const setups = Array.from({ length: WORKERS }, (_, i) => ({
    table,
    appName,
    client: 'pg' as const,
    members,
    requests,
    ...(dist === undefined ? {} : { dist }),
  }));
  let done = false;
  let kills = 0;
  const kill = async () => {
    for (let turn = 0; !done; turn++) {
      // Every other kill, one past its lock step (the batch applied in its process, or its write and COMMIT
      // running) when there is one: its COMMIT is then sent on a dead connection, or its reply lost.
      const killed = await admin.query(turn % 2 === 0 ? KILL_ANY : KILL_COMMITTING, [appName]);
      if (killed.rows[0]?.['k'] === true) kills++;
      await new Promise((resolve) => setTimeout(resolve, KILL_EVERY_MS));
    }
  };
  let killer: Promise<void> = Promise.resolve();
  // The kills start at the barrier, once every worker's warm-up calls (outside the count) are done.
  const reports = await pool
    .run(setups, 0, () => {
      killer = kill();
    })
    .finally(() => {
      done = true;
    });
  await killer;
  return { reports, kills };
}

describeDb('connections killed mid-burst (pg_terminate_backend)', () => {
  it('admits exactly 500, with no failure and no fallback decision, run after run', async () => {
    for (let run = 0; run < 2; run++) {
      const { reports, kills } = await burst([SPEC]);
      expect(kills).toBeGreaterThan(10);
      expect(failuresOf(reports)).toEqual([]);
      expect(reports.map((r) => r.failed)).toEqual(Array(WORKERS).fill(0));
      expect(totalAdmitted(reports)).toBe(LIMIT);
    }
  });

  it('catches a lost COMMIT reply handed to the failure policy (over the limit)', async () => {
    const dist = mutantBuild('lost-commit-fails');
    let admitted = 0;
    for (let run = 0; run < 10 && admitted <= LIMIT; run++) admitted = totalAdmitted((await burst([SPEC], dist)).reports);
    expect(admitted).toBeGreaterThan(LIMIT);
  });
});
