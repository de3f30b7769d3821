/**
 * Connections that die while being made: a server under a kill storm, or behind a proxy that resets
 * new connections, makes some connections fail during their handshake. That is not the server
 * failing: a batch whose connection died before it was ever used committed nothing and is made again,
 * with DEFAULT options, and no call is decided by the failure policy.
 *
 * The harness: every other connection the store asks for is a real mysql2 connection to a TCP relay
 * that resets it the moment it is accepted (so mysql2 fails it as it fails a connection killed during
 * its handshake); the others come from a real pool on the server. Exactly `LIMIT` of 2 × LIMIT
 * sequential calls are admitted, with no failure; the mutant that fails such a batch
 * ('connect-dies-fails') reports failures in the same harness.
 */
import { type Server, createServer } from 'node:net';
import { FixedWindowLimiter } from '@ratekeeper/core';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { MySqlStore } from '../src/index.js';
import { createPool, describeMySql, dropTable, table } from './support/db.js';
import { mutantBuild } from './support/mutant-builds.js';

const LIMIT = 10;
const TABLE = table('connect');
const pool = createPool();
let relay: Server;
let port = 0;
let resets = 0;

beforeAll(async () => {
  relay = createServer((socket) => {
    resets++;
    socket.on('error', () => {});
    socket.resetAndDestroy();
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  port = (relay.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise((resolve) => relay?.close(resolve));
  await dropTable(pool, TABLE).catch(() => undefined);
  await pool.end();
});

/** dying is `real` with every other connection it hands out dying while being made. */
function dying(real: mysql.Pool) {
  let asked = 0;
  return {
    query: (sql: string, values?: unknown[]) => real.query(sql, values),
    getConnection: async () => {
      if (asked++ % 2 === 1) {
        // Rejects as mysql2 rejects a connection reset during its handshake.
        return (await mysql.createConnection({ host: '127.0.0.1', port, user: 'root', database: 'test' })) as unknown as mysql.PoolConnection;
      }
      return real.getConnection();
    },
  };
}

async function run(Store: typeof MySqlStore, key: string): Promise<{ admitted: number; failures: string[] }> {
  const store = new Store({ client: dying(pool), table: TABLE });
  const failures: string[] = [];
  store.on('failure', (info) => failures.push(`${info.reason}: ${String(info.error)}`));
  const limiter = new FixedWindowLimiter({ store, limit: LIMIT, windowMs: 1e12 });
  let admitted = 0;
  for (let i = 0; i < 2 * LIMIT; i++) if ((await limiter.consume(key)).allowed) admitted++;
  return { admitted, failures };
}

describeMySql('connections that die while being made', () => {
  it('makes them again: exactly the limit, no failure (DEFAULT options)', async () => {
    const { MySqlStore } = await import('../src/index.js');
    const before = resets;
    const { admitted, failures } = await run(MySqlStore, 'connect-good');
    expect(resets - before).toBeGreaterThanOrEqual(LIMIT);
    expect(failures).toEqual([]);
    expect(admitted).toBe(LIMIT);
  });

  it('catches a batch failed when its connection dies while being made', async () => {
    const { MySqlStore } = (await import(mutantBuild('connect-dies-fails'))) as typeof import('../src/index.js');
    const { failures } = await run(MySqlStore, 'connect-mutant');
    expect(failures.length).toBeGreaterThan(0);
  });
});
