/**
 * Connections that die while being made: a database under a kill storm, or behind a pooler that
 * resets new connections, makes some connections fail during their startup. That is not the database
 * failing: a batch whose connection dies before it was ever used is run again on another, with DEFAULT
 * options, and no call is decided by the failure policy. (Found by the killed-connections suite on a
 * loaded CI machine, where connecting is slow enough for pg_terminate_backend to land during it.)
 *
 * The harness: a TCP relay in front of the machine's PostgreSQL that resets every other connection
 * the moment it is accepted, and a pg Pool with maxUses: 1, so every transaction makes a new
 * connection and every other one dies while being made. Exactly `LIMIT` of 2 × LIMIT sequential calls
 * are admitted, with no failure; the mutant that fails such a batch ('connect-dies-fails') reports
 * failures in the same harness.
 */
import { type Server, type Socket, connect, createServer } from 'node:net';
import { FixedWindowLimiter } from '@ratekeeper/core';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PG, describeDb, dropTables, uniqueTable } from './support/db.js';
import { mutantBuild } from './support/mutant-builds.js';

const LIMIT = 10;
const table = uniqueTable('connect');
let relay: Server;
let port = 0;
let accepted = 0;
let reset = 0;
const sockets = new Set<Socket>();

beforeAll(async () => {
  relay = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    if (accepted++ % 2 === 1) {
      reset++;
      client.resetAndDestroy();
      return;
    }
    const server = connect(PG.port, PG.host);
    server.on('error', () => client.destroy());
    client.on('close', () => server.destroy());
    server.on('close', () => client.destroy());
    client.pipe(server).pipe(client);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  port = (relay.address() as { port: number }).port;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => relay?.close(resolve));
  await dropTables(table);
});

/** run makes 2 × LIMIT sequential calls on one key through the relay with the given build's store; it answers what they got. */
async function run(build: string, key: string): Promise<{ admitted: number; failures: string[] }> {
  const { PostgresStore } = (await import(build)) as typeof import('../src/index.js');
  const pool = new pg.Pool({ ...PG, port, maxUses: 1 });
  pool.on('error', () => {});
  const store = new PostgresStore({ client: pool, table });
  const failures: string[] = [];
  store.on('failure', (info) => failures.push(`${info.reason}: ${String(info.error)}`));
  const limiter = new FixedWindowLimiter({ store, limit: LIMIT, windowMs: 1e12 });
  let admitted = 0;
  try {
    for (let i = 0; i < 2 * LIMIT; i++) if ((await limiter.consume(key)).allowed) admitted++;
  } finally {
    await pool.end();
  }
  return { admitted, failures };
}

describeDb('connections that die while being made', () => {
  it('makes them again: exactly the limit, no failure (DEFAULT options)', async () => {
    const before = reset;
    const { admitted, failures } = await run(new URL('../src/index.js', import.meta.url).href, 'connect-good');
    expect(reset - before).toBeGreaterThanOrEqual(LIMIT);
    expect(failures).toEqual([]);
    expect(admitted).toBe(LIMIT);
  });

  it('catches a batch failed when its connection dies while being made', async () => {
    const { failures } = await run(mutantBuild('connect-dies-fails'), 'connect-mutant');
    expect(failures.length).toBeGreaterThan(0);
  });
});
