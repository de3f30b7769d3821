/**
 * A stopped database, on a PostgreSQL server of the test's own (./support/server.ts): hung (every
 * process of the cluster SIGSTOPped, then SIGCONT), then an immediate shutdown and a restart, then a
 * fast shutdown and a restart. PostgresStores of DEFAULT options (timeout 1 s, 'fallback'), through a
 * pg Pool and through postgres.js, each with its own policy on one table, go through it together, a
 * batch of calls in flight at each fault:
 *
 * - hung: the calls in flight are decided by the fallback once their deadline has certainly passed
 *   (timeoutMs after they were sent, the server having answered nothing since) and before timeoutMs +
 *   BOUND_SLACK_MS, reported as 'timeout'; the transactions they sent reach the server when it goes
 *   on, past their deadlines, and commit nothing;
 * - shut down (immediate: the processes quit; fast: the transactions rolled back): the calls in flight
 *   are decided within the same bound (at the refused connection, else once their deadline has
 *   passed: a connection that hangs while the server shuts down, a COMMIT whose reply was lost), and
 *   once the server is gone a call is decided at once (refused) through pg; through postgres.js within
 *   the same bound: postgres.js holds a query on a closed connection until that connection's own
 *   reconnect backoff has passed (which grows with the connections refused before, up to 20 s) and
 *   says nothing meanwhile (README, Known limits): seen once, at 1,011 ms, beside two CPU burners;
 * - restarted: the breaker closes at a probe's answer, and the calls are decided by the database again
 *   (through postgres.js, once it reconnects: RECOVERY_BOUND_MS);
 * - throughout, the row holds exactly the admissions the database decided (those without a failure
 *   mark), never one the fallback also decided, across both restarts (nothing committed is lost,
 *   nothing rolled back appears): once the limit is spent, the database admitted exactly LIMIT.
 *
 * postgres.js runs with `fetch_types: false`: by default each new connection first fetches the
 * server's array types, and postgres.js 3.4.9 leaves that query's rejection unhandled when the
 * connection fails meanwhile (seen here once in four runs, a connection made as the server shut down:
 * "Unhandled Rejection: connect ECONNREFUSED" from its pg_type query), which fails the run whatever
 * the store does. The store reads every value as text, so it needs no types (README, Known limits).
 *
 * A mutant whose transaction commits whatever its deadline ('commit-past-deadline') commits the hung
 * batch when the server goes on, and the same check catches it.
 *
 * Refunds sent while the server is down (core's RowEngine): they are owed, not lost, and given back to
 * the database when it answers again, before the calls made after it (they wait for the same row). A
 * mutant that drops them ('refund-dropped') leaves the database holding the charges.
 */
import { FixedWindowLimiter } from '@ratekeeper/core';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FailureInfo, PostgresStore } from '../src/index.js';
import { nameHead, rowId } from '@ratekeeper/core/store';
import { parseState } from '../src/sql.js';
import { type ClientKind, describeDb } from './support/db.js';
import { mutantBuild } from './support/mutant-builds.js';
import { PrivateServer, type Shutdown, hasServerBinaries } from './support/server.js';

const LIMIT = 100;
const CALLS = 10;
const KEY = 'k';
const TABLE = 'rk_stopped';
/** How late after timeoutMs a call in flight at a fault may be decided (ticks, confirming turns, a loaded machine). */
const BOUND_SLACK_MS = 500;
/**
 * How long a store may take to decide on the database again once the server answers: postgres.js
 * 3.4.9 reconnects after a backoff of its own that grows with every refused connection, up to 20 s
 * (its `backoff` option), whatever the store does; a pg Pool connects at the next call.
 */
const RECOVERY_BOUND_MS = 25_000;

const server = new PrivateServer();
const ends: (() => Promise<void>)[] = [];

beforeAll(async () => {
  if (hasServerBinaries) await server.start();
}, 60_000);

afterAll(async () => {
  for (const end of ends) await end().catch(() => undefined);
  await server.stop();
});

type Decision = Awaited<ReturnType<FixedWindowLimiter<'async'>['consume']>>;

/** Target is one store under test and what it has seen. */
class Target {
  readonly label: string;
  readonly name: string;
  readonly store: PostgresStore;
  readonly failures: FailureInfo[] = [];
  readonly #limiter: FixedWindowLimiter<'async'>;
  /** byDatabase counts the admissions decided by the database (no failure mark); byPolicy the calls decided by the failure policy. */
  byDatabase = 0;
  byPolicy = 0;

  constructor(kind: ClientKind, Store: typeof PostgresStore, mutant: boolean) {
    const { host, port, user, database } = server.config;
    let client: unknown;
    if (kind === 'pg') {
      const pool = new pg.Pool({ host, port, user, database });
      pool.on('error', () => {});
      ends.push(() => pool.end());
      client = pool;
    } else {
      // fetch_types: false (see the header): the store reads every value as text.
      const sql = postgres({ host, port, username: user, database, onnotice: () => {}, fetch_types: false });
      ends.push(() => sql.end({ timeout: 1 }));
      client = sql;
    }
    this.label = `${kind}${mutant ? ' mutant' : ''}`;
    this.name = `stopped-${kind}${mutant ? '-mutant' : ''}`;
    this.store = new Store({ client, table: TABLE });
    this.store.on('failure', (info) => this.failures.push(info));
    this.#limiter = new FixedWindowLimiter({ store: this.store, limit: LIMIT, windowMs: 1e12, name: this.name });
  }

  async consume(): Promise<Decision> {
    const d = await this.#limiter.consume(KEY);
    if (d.allowed && d.failure === undefined) this.byDatabase++;
    if (d.failure !== undefined) this.byPolicy++;
    return d;
  }

  /** burst makes CALLS calls in one turn (one batch) and answers them with how long after `from` the last was decided. */
  async burst(from: number): Promise<{ decisions: Decision[]; ms: number }> {
    const decisions = await Promise.all(Array.from({ length: CALLS }, () => this.consume()));
    return { decisions, ms: performance.now() - from };
  }

  /**
   * recovered makes calls until one is decided by the database (a poll bounded by RECOVERY_BOUND_MS:
   * the store probes every probeIntervalMs, and postgres.js reconnects after its own backoff).
   */
  async recovered(): Promise<number> {
    const from = performance.now();
    while ((await this.consume()).failure !== undefined) {
      if (performance.now() - from > RECOVERY_BOUND_MS) throw new Error(`${this.label}: the store did not decide on the database again`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return performance.now() - from;
  }

  /** drain makes calls until the database denies one: the limit is spent. */
  async drain(): Promise<void> {
    for (let i = 0; i < 2 * LIMIT; i++) {
      const d = await this.consume();
      if (!d.allowed && d.failure === undefined) return;
    }
    throw new Error(`${this.label}: the database never denied`);
  }
}

interface Fault {
  readonly label: string;
  /** The calls in flight at the fault, per target: what they got and how long after the fault. */
  readonly bursts: { decisions: Decision[]; ms: number }[];
  /** While the server was gone (shutdowns): a call and how long it took. */
  readonly gone?: { decision: Decision; ms: number }[];
  /** How long each target took to decide on the database again. */
  readonly recoveredMs: number[];
}

/** shutdown stops the server in `mode` with a batch in flight on every target, makes a call while it is gone, and restarts it. */
async function shutdown(targets: readonly Target[], mode: Shutdown): Promise<Fault> {
  const sent = targets.map((t) => t.burst(performance.now()));
  const stopped = server.shutdown(mode);
  const bursts = await Promise.all(sent);
  await stopped;
  const gone = await Promise.all(
    targets.map(async (t) => {
      const from = performance.now();
      const decision = await t.consume();
      return { decision, ms: performance.now() - from };
    }),
  );
  await server.start();
  const recoveredMs = await Promise.all(targets.map((t) => t.recovered()));
  return { label: mode, bursts, gone, recoveredMs };
}

async function run(targets: readonly Target[]): Promise<Fault[]> {
  for (const t of targets) for (let i = 0; i < 3; i++) expect((await t.consume()).failure, t.label).toBeUndefined();
  const faults: Fault[] = [];

  // Hung: the whole cluster stopped with a batch in flight on every target, until each is decided.
  const hungAt = performance.now();
  const sent = targets.map((t) => t.burst(hungAt));
  server.hang();
  const hung = await Promise.all(sent);
  server.resume();
  faults.push({ label: 'hung', bursts: hung, recoveredMs: await Promise.all(targets.map((t) => t.recovered())) });

  faults.push(await shutdown(targets, 'immediate'));
  faults.push(await shutdown(targets, 'fast'));
  for (const t of targets) await t.drain();
  return faults;
}

/** countOf reads a target's fixed window count ([start, count]) on the server. */
async function countOf(t: Target): Promise<number | undefined> {
  const pool = new pg.Pool({ ...server.config, max: 1 });
  try {
    const { rows } = await pool.query(`SELECT state::text AS s FROM ${TABLE} WHERE k = decode($1, 'hex')`, [rowId(nameHead(t.name), KEY)]);
    return parseState(rows[0]?.['s'] as string | undefined)?.[1];
  } finally {
    await pool.end();
  }
}

describeDb('a stopped database (own server: hung, immediate and fast shutdown, restarts)', () => {
  it.skipIf(!hasServerBinaries)('falls back within the bound, recovers, and the row holds exactly what the database decided; catches a commit past the deadline', async () => {
    const { PostgresStore: Late } = (await import(mutantBuild('commit-past-deadline'))) as { PostgresStore: typeof PostgresStore };
    const targets = [new Target('pg', PostgresStore, false), new Target('postgres', PostgresStore, false), new Target('pg', Late, true)];
    const good = targets.slice(0, 2);
    const faults = await run(targets);
    const timeoutMs = good[0]?.store.timeoutMs as number;
    const report = faults.map((f) => {
      const decided = f.bursts.map((b) => `${b.ms.toFixed(0)} ms (${b.decisions.filter((d) => d.failure !== undefined).length} by policy)`);
      return `${f.label}: decided after ${decided.join(', ')}; recovered after ${f.recoveredMs.map((ms) => ms.toFixed(0)).join('/')} ms`;
    });
    console.log(`stopped (${targets.map((t) => t.label).join(', ')}):\n  ${report.join('\n  ')}`);

    for (const f of faults) {
      good.forEach((t, i) => {
        const { decisions, ms } = f.bursts[i] as { decisions: Decision[]; ms: number };
        const where = `${t.label}, ${f.label}`;
        // Each call once: by the database if it committed before the fault, else by the fallback.
        expect(decisions.length, where).toBe(CALLS);
        if (f.label === 'hung')
          expect(
            decisions.map((d) => d.failure),
            where,
          ).toEqual(Array(CALLS).fill('fallback'));
        if (f.label === 'hung') expect(ms, where).toBeGreaterThanOrEqual(timeoutMs - 1);
        expect(ms, where).toBeLessThan(timeoutMs + BOUND_SLACK_MS);
        const gone = f.gone?.[i];
        if (gone !== undefined) {
          expect(gone.decision.failure, where).toBe('fallback');
          expect(gone.ms, where).toBeLessThan(t.label === 'pg' ? 100 : timeoutMs + BOUND_SLACK_MS);
        }
      });
    }
    for (const t of good) {
      // One event per call decided by the policy: timeouts, refusals, and calls not sent while the breaker was open.
      expect(t.failures.length, t.label).toBe(t.byPolicy);
      expect(t.failures.slice(0, CALLS), t.label).toEqual(Array(CALLS).fill({ operation: 'consume', policy: t.name, reason: 'timeout' }));
      expect(
        t.failures.filter((f) => !['timeout', 'connection', 'unavailable'].includes(f.reason)),
        t.label,
      ).toEqual([]);
    }
    const counts = await Promise.all(targets.map(countOf));
    for (const [i, t] of good.entries()) expect([t.byDatabase, counts[i]], t.label).toEqual([LIMIT, LIMIT]);
    const mutant = targets[2] as Target;
    expect(mutant.byDatabase).toBeLessThan(counts[2] as number);
  });

  it.skipIf(!hasServerBinaries)('owes the refunds it could not send and gives them back when the database answers again; catches a refund dropped', async () => {
    const { PostgresStore: Dropping } = (await import(mutantBuild('refund-dropped'))) as { PostgresStore: typeof PostgresStore };
    const stores: [typeof PostgresStore, string][] = [
      [PostgresStore, 'owed'],
      [Dropping, 'dropped'],
    ];
    const limiters = stores.map(([Store, label]) => {
      const pool = new pg.Pool(server.config);
      pool.on('error', () => {});
      ends.push(() => pool.end());
      const store = new Store({ client: pool, table: TABLE });
      store.on('failure', () => {});
      return { label, name: `refund-${label}`, limiter: new FixedWindowLimiter({ store, limit: LIMIT, windowMs: 1e12, name: `refund-${label}` }) };
    });
    for (const { limiter } of limiters) for (let i = 0; i < 10; i++) expect((await limiter.consume(KEY)).failure).toBeUndefined();
    await server.shutdown('immediate');
    for (const { limiter } of limiters) for (let i = 0; i < 4; i++) await limiter.refund(KEY);
    await server.start();
    const counts: (number | undefined)[] = [];
    for (const { label, name, limiter } of limiters) {
      // The first call decided by the database closes the breaker, which sends what is owed; the next call waits for it (one row).
      for (let i = 0; (await limiter.consume(KEY)).failure !== undefined; i++) {
        if (i > 400) throw new Error(`${label}: the store did not decide on the database again`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect((await limiter.consume(KEY)).failure, label).toBeUndefined();
      counts.push(await countOf({ name } as Target));
    }
    expect(counts).toEqual([10 + 2 - 4, 10 + 2]);
  });
});
