/**
 * Connections killed mid-burst: 8 worker processes × 2,000 requests at once on one key (limit 500,
 * DEFAULT options) while this process kills their connections with KILL CONNECTION, one every few
 * milliseconds, for the whole burst: mid-transaction, idle in the pool, and every other kill one whose
 * commit is running when there is one. Exactly 500 are admitted, every one by the database (never
 * more, and no request lost: counted but denied): a transaction killed before its commit was sent
 * committed nothing and is run again; one killed while its commit was on its way is looked up in the
 * commit records (`fate` in src/dialect.ts, asked by core's SqlTransactor) and run again only if it did not commit (rare here:
 * test/lost-commit.test.ts makes that case happen every time). A mutant that leaves a killed batch to
 * the failure policy instead of running it again has its fallback decide (and admit beyond what the
 * database would), and the same check catches it.
 *
 * The workers connect as a user of their own, so only their connections are killed (never another
 * suite's on the same server).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mysqlSchema } from '../src/index.js';
import { createPool, describeMySql, dropTable, hasMySql, table } from './support/db.js';
import { mutantBuild } from './support/mutant-builds.js';
import { type MemberSpec, WorkerPool, type WorkerReport, totalAdmitted } from './support/workers.js';

const WORKERS = 8;
const REQUESTS = 2000;
const LIMIT = 500;
const SPEC: MemberSpec = { algorithm: 'fixed-window', limit: LIMIT, windowMs: 1e12 };

const admin = createPool(3);
const TABLE = table('kill');
const USER = `rkt_kill_${process.pid}`;
const URL = `mysql://${USER}@127.0.0.1:3306/test`;
let pool: WorkerPool;
let runs = 0;

beforeAll(async () => {
  if (!hasMySql) return;
  pool = new WorkerPool(WORKERS);
  for (const host of ['%', 'localhost', '127.0.0.1']) {
    await admin.query(`CREATE USER IF NOT EXISTS '${USER}'@'${host}'`);
    await admin.query(`GRANT ALL ON test.* TO '${USER}'@'${host}'`);
  }
  for (const statement of mysqlSchema(TABLE).split('\n--\n')) await admin.query(statement);
});

afterAll(async () => {
  pool?.close();
  if (!hasMySql) return admin.end();
  for (const host of ['%', 'localhost', '127.0.0.1']) await admin.query(`DROP USER IF EXISTS '${USER}'@'${host}'`);
  await dropTable(admin, TABLE).catch(() => undefined);
  await admin.end();
});

/**
 * killWhile kills a connection of USER every few ms until `done` settles, every other time one that is
 * running its commit (CALL …) when there is one, else any; answers how many it killed.
 */
async function killWhile(done: Promise<unknown>): Promise<number> {
  let over = false;
  void done.finally(() => {
    over = true;
  });
  let kills = 0;
  while (!over) {
    const [rows] = await admin.query('SELECT ID, INFO FROM information_schema.PROCESSLIST WHERE USER = ?', [USER]);
    const all = rows as { ID: number; INFO: string | null }[];
    const committing = all.filter((r) => r.INFO?.startsWith('CALL') === true);
    const ids = (kills % 2 === 0 && committing.length > 0 ? committing : all).map((r) => r.ID);
    const id = ids[Math.floor(Math.random() * ids.length)];
    if (id !== undefined) {
      await admin.query(`KILL CONNECTION ${id}`).then(
        () => kills++,
        () => undefined, // already gone
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 2 + Math.random() * 6));
  }
  return kills;
}

async function burst(dist?: string) {
  const key = `kill-${runs++}`;
  const requests = Array.from({ length: REQUESTS }, () => [key, 1] as const);
  let kills: Promise<number> = Promise.resolve(0);
  // Kill from the barrier on, once the workers' warm-up calls are done.
  const reports = pool.run(
    Array.from({ length: WORKERS }, () => ({ url: URL, table: TABLE, members: [SPEC], requests, ...(dist === undefined ? {} : { dist }) })),
    0,
    () => {
      kills = killWhile(reports);
    },
  );
  return { reports: await reports, kills: await kills };
}

/** exact: exactly the limit admitted, and every decision the database's (none by the failure policy). */
function exact(reports: readonly WorkerReport[]): boolean {
  return totalAdmitted(reports) === LIMIT && reports.every((r) => r.failed === 0);
}

describeMySql('connections killed mid-burst (KILL CONNECTION)', () => {
  it('admits exactly 500, all by the database, with connections killed throughout', async () => {
    const { reports, kills } = await burst();
    expect(kills).toBeGreaterThan(10);
    expect(reports.flatMap((r) => r.failures).slice(0, 3)).toEqual([]);
    expect(exact(reports)).toBe(true);
  });

  it('catches a store that leaves a killed batch to its failure policy (its fallback decides what the database could)', async () => {
    const { reports } = await burst(mutantBuild('lost-is-failure'));
    expect(exact(reports)).toBe(false);
  });
});
