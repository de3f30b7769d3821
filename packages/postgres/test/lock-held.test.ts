/**
 * A lock held by another session: an administrator's transaction holds a key's row (SELECT … FOR
 * UPDATE) or the whole table (LOCK TABLE … IN ACCESS EXCLUSIVE MODE) and does not end. PostgresStores
 * of DEFAULT options (timeout 1 s, 'fallback'), through a pg Pool and through postgres.js, each send
 * one batch of calls on that key, which waits for the lock. The contract (core's sql-transactor.ts and
 * Remote): each lock wait is bounded on the server (lock_timeout, timeoutMs / 2), and its end is the
 * database answering, so it is busy, not stopped, and is waited for, on a pool of any size (no
 * question of liveness needs a second connection):
 *
 * - held 2.5 × timeoutMs (by the server's clock) and released: every call is decided by the database
 *   when the lock goes (the transaction finds its deadline passed, answers 'expired' and runs again
 *   with a new one), with no failure event; the row holds exactly the admissions;
 * - held until the calls are decided: they wait MAX_WAIT_FACTOR × timeoutMs (10 s), then are decided
 *   by the fallback, one 'timeout' event each, and the breaker stays closed. When the lock is released
 *   the waiting transaction reaches the commit past its deadline and commits nothing: the row holds
 *   only what the database decided, so what it recorded plus what the fallback admitted stays within
 *   the limit. A mutant whose transaction commits whatever its deadline ('commit-past-deadline')
 *   records the fallback's calls too, and the same check catches it;
 * - on a pool of ONE connection, held 2.5 × timeoutMs: waited for the same way. A mutant whose lock
 *   waits are not bounded on the server ('unbounded-lock-wait') hears nothing while its only
 *   connection waits, and falls back at timeoutMs.
 */
import { FixedWindowLimiter } from '@ratekeeper/core';
import { MAX_WAIT_FACTOR } from '@ratekeeper/core/store';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FailureInfo, PostgresStore } from '../src/index.js';
import { nameHead, rowId } from '@ratekeeper/core/store';
import { parseState } from '../src/sql.js';
import { type Client, type ClientKind, PG, describeDb, dropTables, makeClient, pgPool, postgresSql, uniqueTable } from './support/db.js';
import { mutantBuild } from './support/mutant-builds.js';

const LIMIT = 10;
const CALLS = 12;
const KEY = 'k';
const ROW_TABLE = uniqueTable('lockrow');
const WHOLE_TABLE = uniqueTable('locktable');
const clients: Client[] = [];
let admin: pg.Pool;
let runs = 0;

beforeAll(() => {
  admin = new pg.Pool({ ...PG, max: 2 });
});

afterAll(async () => {
  for (const c of clients) await c.end();
  await admin?.end();
  await dropTables(ROW_TABLE);
  await dropTables(WHOLE_TABLE);
});

type Lock = 'row' | 'table';

interface Target {
  readonly label: string;
  readonly lock: Lock;
  readonly table: string;
  readonly name: string;
  readonly store: PostgresStore;
  readonly limiter: FixedWindowLimiter<'async'>;
  readonly failures: FailureInfo[];
}

/** onePool is a client of `kind` with a pool of one connection. */
function onePool(kind: ClientKind): Client {
  if (kind === 'pg') {
    const pool = pgPool({ max: 1 });
    return { kind, client: pool, end: () => pool.end() };
  }
  const sql = postgresSql({ max: 1 });
  return { kind, client: sql, end: () => sql.end({ timeout: 1 }) };
}

/** target makes a store of DEFAULT options on its own policy name, and decides its first call on the database. */
async function target(kind: ClientKind, lock: Lock, Store: typeof PostgresStore = PostgresStore, connections?: 1): Promise<Target> {
  const client = connections === 1 ? onePool(kind) : makeClient(kind);
  clients.push(client);
  const table = lock === 'row' ? ROW_TABLE : WHOLE_TABLE;
  const name = `lock-${lock}-${kind}-${runs++}`;
  const store = new Store({ client: client.client, table });
  const failures: FailureInfo[] = [];
  store.on('failure', (info) => failures.push(info));
  const limiter = new FixedWindowLimiter({ store, limit: LIMIT, windowMs: 1e12, name });
  const first = await limiter.consume(KEY);
  expect(first.allowed && first.failure === undefined).toBe(true);
  const label = `${kind} (${lock} lock${connections === 1 ? ', a pool of one' : ''})${Store === PostgresStore ? '' : ' mutant'}`;
  return { label, lock, table, name, store, limiter, failures };
}

/** countOf reads the fixed window's count ([start, count]) of a target's row. */
async function countOf(t: Target): Promise<number | undefined> {
  const { rows } = await admin.query(`SELECT state::text AS s FROM ${t.table} WHERE k = decode($1, 'hex')`, [rowId(nameHead(t.name), KEY)]);
  return parseState(rows[0]?.['s'] as string | undefined)?.[1];
}

/** hold opens the other session's transaction and locks each target's row, or its table. */
async function hold(targets: readonly Target[]): Promise<{ holder: pg.PoolClient; pid: number }> {
  const holder = await admin.connect();
  await holder.query('BEGIN');
  const pid = Number((await holder.query('SELECT pg_backend_pid() AS p')).rows[0]?.['p']);
  for (const t of targets) {
    if (t.lock === 'row') await holder.query(`SELECT 1 FROM ${t.table} WHERE k = decode($1, 'hex') FOR UPDATE`, [rowId(nameHead(t.name), KEY)]);
  }
  if (targets.some((t) => t.lock === 'table')) await holder.query(`LOCK TABLE ${WHOLE_TABLE} IN ACCESS EXCLUSIVE MODE`);
  return { holder, pid };
}

/** burst makes CALLS calls on the key in one turn (one batch) and answers them with how long they took. */
async function burst(t: Target): Promise<{ decisions: Awaited<ReturnType<FixedWindowLimiter<'async'>['consume']>>[]; ms: number }> {
  const startedAt = performance.now();
  const decisions = await Promise.all(Array.from({ length: CALLS }, () => t.limiter.consume(KEY)));
  return { decisions, ms: performance.now() - startedAt };
}

/** blocked counts the sessions that `pid` blocks now. */
async function blocked(pid: number): Promise<number> {
  const { rows } = await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [pid]);
  return Number(rows[0]?.['n']);
}

/** serverSeconds reads the server's clock. */
async function serverSeconds(): Promise<number> {
  return Number((await admin.query('SELECT extract(epoch from clock_timestamp())::float8 AS s')).rows[0]?.['s']);
}

/**
 * heldWhileWaited keeps the lock of `pid` until every target's transaction has waited for it `seconds`
 * by the server's clock (a bounded poll: each lock wait is cut short at its bound and sent again, so
 * the wait is measured from the first time all of them were blocked).
 */
async function heldWhileWaited(pid: number, targets: number, seconds: number): Promise<void> {
  for (let i = 0; (await blocked(pid)) < targets; i++) {
    if (i > 200) throw new Error('the stores did not wait for the lock');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const from = await serverSeconds();
  for (let i = 0; (await serverSeconds()) - from < seconds; i++) {
    if (i > 400) throw new Error('the server clock did not move');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describeDb('a lock held by another session (row FOR UPDATE, table ACCESS EXCLUSIVE)', () => {
  it('held 2.5 × timeoutMs: waited for, every call decided by the database, exactly the limit, no failure', async () => {
    const targets = [await target('pg', 'row'), await target('postgres', 'row'), await target('pg', 'table'), await target('postgres', 'table')];
    const heldS = (2.5 * (targets[0] as Target).store.timeoutMs) / 1000;
    const { holder, pid } = await hold(targets);
    const bursts = targets.map(burst);
    await heldWhileWaited(pid, targets.length, heldS);
    await holder.query('ROLLBACK');
    holder.release();
    const results = await Promise.all(bursts);
    results.forEach(({ decisions }, i) => {
      const t = targets[i] as Target;
      expect(
        decisions.map((d) => d.failure),
        t.label,
      ).toEqual(Array(CALLS).fill(undefined));
      expect(decisions.filter((d) => d.allowed).length, t.label).toBe(LIMIT - 1);
      expect(t.failures, t.label).toEqual([]);
    });
    for (const t of targets) expect(await countOf(t), t.label).toBe(LIMIT);
  });

  it(`held until decided: the fallback decides after ${MAX_WAIT_FACTOR} × timeoutMs, and the database never also does; catches a commit past the deadline`, async () => {
    const { PostgresStore: Late } = (await import(mutantBuild('commit-past-deadline'))) as { PostgresStore: typeof PostgresStore };
    const good = [await target('pg', 'row'), await target('postgres', 'row'), await target('pg', 'table'), await target('postgres', 'table')];
    const mutant = await target('pg', 'row', Late);
    const targets = [...good, mutant];
    const timeoutMs = (targets[0] as Target).store.timeoutMs;
    const { holder } = await hold(targets);
    const results = await Promise.all(targets.map(burst));
    await holder.query('ROLLBACK');
    holder.release();
    // A call after the release, on the same row or table, waits for the transaction that waited for
    // the lock (PostgreSQL grants a lock in order), so that one has ended before the count is read.
    const last = await Promise.all(targets.map((t) => t.limiter.consume(KEY)));
    const counts = await Promise.all(targets.map(countOf));
    results.forEach(({ decisions, ms }, i) => {
      const t = targets[i] as Target;
      expect(
        decisions.map((d) => d.failure),
        t.label,
      ).toEqual(Array(CALLS).fill('fallback'));
      // The fallback's share: the whole limit, for the one process seen on the table.
      expect(decisions.filter((d) => d.allowed).length, t.label).toBe(LIMIT);
      expect(ms, t.label).toBeGreaterThanOrEqual(MAX_WAIT_FACTOR * timeoutMs - 1);
      expect(ms, t.label).toBeLessThan((MAX_WAIT_FACTOR + 1.5) * timeoutMs);
      expect(t.failures, t.label).toEqual(Array(CALLS).fill({ operation: 'consume', policy: t.name, reason: 'timeout' }));
      // The breaker stayed closed: the next call was decided by the database.
      expect((last[i] as { failure?: string }).failure, t.label).toBeUndefined();
    });
    // The row holds what the database decided (the first call and the last), never the burst the
    // fallback decided; the mutant's waiting transaction committed the burst too.
    const byDatabase = last.map((d) => 1 + (d.allowed && d.failure === undefined ? 1 : 0));
    for (const [i, t] of good.entries()) expect([counts[i], byDatabase[i]], t.label).toEqual([2, 2]);
    expect(counts[good.length]).toBeGreaterThan(byDatabase[good.length] as number);
  });

  it('on a pool of one connection, held 2.5 × timeoutMs: waited for, decided by the database; catches lock waits not bounded on the server', async () => {
    const { PostgresStore: Unbounded } = (await import(mutantBuild('unbounded-lock-wait'))) as { PostgresStore: typeof PostgresStore };
    const targets = [await target('pg', 'row', PostgresStore, 1), await target('postgres', 'row', PostgresStore, 1), await target('pg', 'table', PostgresStore, 1)];
    const mutant = await target('pg', 'row', Unbounded, 1);
    const heldS = (2.5 * (targets[0] as Target).store.timeoutMs) / 1000;
    const { holder, pid } = await hold([...targets, mutant]);
    const bursts = [...targets, mutant].map(burst);
    await heldWhileWaited(pid, targets.length + 1, heldS);
    await holder.query('ROLLBACK');
    holder.release();
    const results = await Promise.all(bursts);
    for (const [i, t] of targets.entries()) {
      const { decisions } = results[i] as Awaited<ReturnType<typeof burst>>;
      expect(
        decisions.map((d) => d.failure),
        t.label,
      ).toEqual(Array(CALLS).fill(undefined));
      expect(t.failures, t.label).toEqual([]);
      expect(await countOf(t), t.label).toBe(LIMIT);
    }
    const fell = (results[targets.length] as Awaited<ReturnType<typeof burst>>).decisions.filter((d) => d.failure === 'fallback').length;
    expect(fell, mutant.label).toBe(CALLS);
  });
});
