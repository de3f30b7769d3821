/**
 * A commit whose reply is lost: the pool the store is given runs every statement on the real server,
 * but destroys its connection as soon as a commit (CALL …) has run, before the store reads the reply,
 * and answers the store what mysql2 answers for a connection closed under it. So every batch commits
 * and never hears it. The store must look the batch up in the commit records, find it, and answer the
 * decisions it committed: 12 calls on a limit of 5 → exactly 5 admitted, in order, and the table holds
 * exactly 5. A mutant that runs the batch again without looking counts each batch twice (its calls
 * are denied by their own first run) and fails the same check.
 */
import { FixedWindowLimiter } from '@ratekeeper/core';
import type mysql from 'mysql2/promise';
import { afterAll, expect, it } from 'vitest';
import { type FailureInfo, MySqlStore } from '../src/index.js';
import { createPool, describeMySql, dropTable, table } from './support/db.js';
import { mutantBuild } from './support/mutant-builds.js';

const pool = createPool();
const TABLE = table('lost');
let keys = 0;

afterAll(async () => {
  await dropTable(pool, TABLE).catch(() => undefined);
  await pool.end();
});

/** lostCommits is `real` with every commit's reply lost (the commit itself runs). */
function lostCommits(real: mysql.Pool) {
  return {
    query: (sql: string, values?: unknown[]) => real.query(sql, values),
    async getConnection() {
      const connection = await real.getConnection();
      return {
        async query(sql: string, values?: unknown[]) {
          const result = await connection.query(sql, values);
          if (!sql.startsWith('CALL')) return result;
          connection.destroy();
          throw Object.assign(new Error('Connection lost: The server closed the connection.'), { fatal: true, code: 'PROTOCOL_CONNECTION_LOST' });
        },
        release: () => connection.release(),
        destroy: () => connection.destroy(),
      };
    },
  };
}

async function run(Store: typeof MySqlStore) {
  const store = new Store({ client: lostCommits(pool), table: TABLE });
  const failures: FailureInfo[] = [];
  store.on('failure', (info) => failures.push(info));
  const limiter = new FixedWindowLimiter({ store, limit: 5, windowMs: 3_600_000, name: `lost-${keys}` });
  const key = `k${keys++}`;
  const allowed: boolean[] = [];
  for (let i = 0; i < 12; i++) allowed.push((await limiter.consume(key)).allowed);
  // The fixed window's state is [window start, count], as doubles.
  const [rows] = await pool.query(`SELECT state FROM \`${TABLE}\` WHERE policy = ?`, [`lost-${keys - 1}`]);
  const count = (rows as { state: Buffer }[])[0]?.state.readDoubleLE(8);
  return { allowed, failures, count };
}

describeMySql('a commit whose reply is lost', () => {
  it('is looked up and its decisions stand: exactly the limit admitted and recorded', async () => {
    const { allowed, failures, count } = await run(MySqlStore);
    expect(failures).toEqual([]);
    expect(allowed).toEqual([...Array(5).fill(true), ...Array(7).fill(false)]);
    expect(count).toBe(5);
  });

  it('catches a store that runs such a batch again without looking', async () => {
    const { MySqlStore: Blind } = (await import(mutantBuild('blind-commit-retry'))) as { MySqlStore: typeof MySqlStore };
    const { allowed } = await run(Blind);
    expect(allowed.filter(Boolean).length).toBeLessThan(5);
  });
});
