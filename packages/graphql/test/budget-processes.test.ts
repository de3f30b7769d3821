/**
 * The estimate/actual refund, exact across 8 processes on Redis, PostgreSQL, MySQL/MariaDB and SQLite
 * (one file; Durable Objects are one object, not processes: their store runs core's kit, as these): 8 GraphQL Yoga
 * servers, each in its own process with its own store client and the built plugin, charge one
 * client's budget of 600 at once with 40 operations each, every one estimated at 10 and costing 3.
 * Operations in flight hold their estimate, so some are refused while others run; when all are
 * answered the budget holds exactly 600 − 3 × (operations admitted): no refund lost, none given twice,
 * no estimate left held. The store decides on its own clock with default options; the budget refills
 * one unit in 10,000 s, so no whole unit comes back during the run. The mutant that misreads the
 * actual cost (refunding almost the whole estimate) fails the same check.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TokenBucketLimiter } from '@ratekeeper/core';
import { MySqlStore } from '@ratekeeper/mysql';
import { PostgresStore } from '@ratekeeper/postgres';
import { RedisStore } from '@ratekeeper/redis';
import { type RedisServer, WorkerPool, startRedis } from '@ratekeeper/store-contract';
import { SqliteStore } from '@ratekeeper/sqlite';
import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMutant } from './support/mutants.js';

/** The machine's PostgreSQL answers on 127.0.0.1:5432 (under CI=true it must; elsewhere its test is skipped, loudly). */
const POSTGRES_UP = (() => {
  try {
    execFileSync('pg_isready', ['-h', '127.0.0.1', '-p', '5432', '-t', '3'], { stdio: 'ignore' });
    return true;
  } catch {
    if (process.env['CI'] === 'true') throw new Error('PostgreSQL is not answering on 127.0.0.1:5432; CI runs these tests against it');
    console.warn('SKIPPED: PostgreSQL is not answering on 127.0.0.1:5432');
    return false;
  }
})();

const MYSQL_URL = 'mysql://root@127.0.0.1:3306/test';
/** The machine's MariaDB answers on 127.0.0.1:3306 (under CI=true it must; elsewhere its test is skipped, loudly). */
const MYSQL_UP = await mysql.createConnection({ uri: MYSQL_URL, connectTimeout: 2000 }).then(
  (connection) => connection.end().then(() => true),
  () => {
    if (process.env['CI'] === 'true') throw new Error('MariaDB is not answering on 127.0.0.1:3306; CI runs these tests against it');
    console.warn('SKIPPED: MariaDB is not answering on 127.0.0.1:3306');
    return false;
  },
);

const PROCESSES = 8;
const OPERATIONS = 40;
const CAPACITY = 600;
const REFILL_PER_SECOND = 0.0001;

interface Report {
  readonly admitted: number;
  readonly denied: number;
  readonly actual: number;
}

interface Outcome extends Report {
  /** Whole units the budget holds once every operation was answered. */
  readonly available: number;
}

type Target =
  | { readonly store: 'redis'; readonly port: number }
  | { readonly store: 'postgres' | 'mysql'; readonly table: string }
  | { readonly store: 'sqlite'; readonly path: string };

async function burst(pool: WorkerPool<object, Report>, target: Target, key: string, dist?: string): Promise<Outcome> {
  const setup = { ...target, key, capacity: CAPACITY, refillPerSecond: REFILL_PER_SECOND, operations: OPERATIONS, ...(dist === undefined ? {} : { dist }) };
  const reports = await pool.run(Array.from({ length: PROCESSES }, () => setup));
  const sum = (f: (r: Report) => number) => reports.reduce((s, r) => s + f(r), 0);
  return { admitted: sum((r) => r.admitted), denied: sum((r) => r.denied), actual: sum((r) => r.actual), available: await available(target, key) };
}

/** available reads the budget from the test process, through a limiter of the same name on the same store. */
async function available(target: Target, key: string): Promise<number> {
  if (target.store === 'redis') {
    const client = new Redis({ host: '127.0.0.1', port: target.port });
    try {
      return await read(new RedisStore({ client }), key);
    } finally {
      client.disconnect();
    }
  }
  if (target.store === 'sqlite') {
    const store = new SqliteStore({ path: target.path });
    try {
      return await read(store, key);
    } finally {
      store.close();
    }
  }
  if (target.store === 'mysql') {
    const client = mysql.createPool({ uri: MYSQL_URL, connectionLimit: 2 });
    try {
      return await read(new MySqlStore({ client, table: target.table }), key);
    } finally {
      await client.end();
    }
  }
  const client = new pg.Pool({ host: '127.0.0.1', port: 5432, user: 'root', database: 'test' });
  try {
    return await read(new PostgresStore({ client, table: target.table }), key);
  } finally {
    await client.end();
  }
}

async function read(store: RedisStore | PostgresStore | MySqlStore | SqliteStore, key: string): Promise<number> {
  const limiter = new TokenBucketLimiter({ capacity: CAPACITY, refillPerSecond: REFILL_PER_SECOND, name: 'gql', store });
  const d = await limiter.peek(key, 1);
  return d.allowed ? d.remaining + 1 : d.remaining;
}

/** exact: the budget holds its size less what the admitted operations actually cost, and the burst was contended. */
function expectExact(outcome: Outcome): void {
  expect(outcome.admitted + outcome.denied).toBe(PROCESSES * OPERATIONS);
  expect(outcome.denied, 'the budget ran out during the burst').toBeGreaterThan(0);
  expect(outcome.actual).toBe(3 * outcome.admitted);
  expect(outcome.available).toBe(CAPACITY - 3 * outcome.admitted);
}

const pool = new WorkerPool<object, Report>(new URL('./support/worker.mjs', import.meta.url), PROCESSES);
let redis: RedisServer;
let runId = 0;
const key = () => `client-${process.pid}-${runId++}`;

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  pool.close();
  await redis?.stop();
});

describe('the refund across 8 processes', () => {
  it('is exact on Redis', async () => {
    expectExact(await burst(pool, { store: 'redis', port: redis.port }, key()));
  });

  it.runIf(POSTGRES_UP)('is exact on PostgreSQL', async () => {
    const table = `rk_graphql_${process.pid}`;
    try {
      expectExact(await burst(pool, { store: 'postgres', table }, key()));
    } finally {
      const client = new pg.Pool({ host: '127.0.0.1', port: 5432, user: 'root', database: 'test' });
      await client.query(`DROP TABLE IF EXISTS ${table}, ${table}_peers`).finally(() => client.end());
    }
  });

  it.runIf(MYSQL_UP)('is exact on MySQL/MariaDB', async () => {
    const table = `rk_graphql_${process.pid}`;
    try {
      expectExact(await burst(pool, { store: 'mysql', table }, key()));
    } finally {
      const client = mysql.createPool({ uri: MYSQL_URL, connectionLimit: 1 });
      await client.query(`DROP TABLE IF EXISTS \`${table}\`, \`${table}_commits\`, \`${table}_peers\``).finally(() => client.end());
    }
  });

  it('is exact on SQLite (8 processes on one file)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rk-graphql-'));
    try {
      expectExact(await burst(pool, { store: 'sqlite', path: join(dir, 'limits.sqlite') }, key()));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('catches the refund-misread mutant on Redis', async () => {
    const outcome = await burst(pool, { store: 'redis', port: redis.port }, key(), buildMutant('refund-misread'));
    expect(() => expectExact(outcome)).toThrow();
    expect(outcome.available).toBeGreaterThan(CAPACITY - 3 * outcome.admitted);
  });
});
