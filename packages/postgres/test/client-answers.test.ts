/**
 * The client tells the store of the database's answers outside a query's rows (src/client.ts): a
 * plain query whose connection is killed by an administrator (57P01) is run again, and each such error
 * is an answer of a working database; the errors a database that cannot decide (57P02 crash, 57P03
 * starting up or shutting down) or a pooler in front of a stopped one (class 08) answers at every
 * attempt, and a connection that simply closed, are run again too but are never counted, so the store's
 * Remote still falls back within its bound. A full server (class 53) and a pool that refuses
 * connections fail the query at once.
 * The schema's creation (a transaction on a connection of its own) is run again and counted the same way.
 * A duck-typed pg Pool stands in for the library (the connection failures are the point, not SQL).
 */
import { describe, expect, it } from 'vitest';
import { toDb } from '../src/client.js';
import { PostgresDialect, lost, working } from '../src/dialect.js';

/** failing is a pg-Pool-shaped client whose first queries fail with `errors`, in order, then answer. */
function failing(errors: readonly object[]) {
  let queries = 0;
  const pool = {
    connect: () =>
      Promise.resolve({
        query: () => {
          const error = errors[queries++];
          return error === undefined ? Promise.resolve({ rows: [{ one: '1' }] }) : Promise.reject(Object.assign(new Error('failed'), error));
        },
        release: () => {},
        on: () => {},
      }),
    query: () => Promise.reject(new Error('not used: the store takes a connection per query')),
    on: () => {},
  };
  return { pool, queries: () => queries };
}

/** heardDb wraps `pool` as the store does, counting the answers a working database sent. */
function heardDb(pool: unknown) {
  let heard = 0;
  const db = toDb(pool, lost, (error) => {
    if (working(error)) heard++;
  });
  return { db, heard: () => heard };
}

async function answersHeard(errors: readonly object[]): Promise<{ heard: number; queries: number; rows: unknown }> {
  const { pool, queries } = failing(errors);
  const { db, heard } = heardDb(pool);
  const rows = await db.query('SELECT 1 AS one');
  return { heard: heard(), queries: queries(), rows };
}

describe('the answers of the database outside a query’s rows', () => {
  it('counts each backend terminated by an administrator (57P01), and runs the query again', async () => {
    expect(await answersHeard([{ code: '57P01' }, { code: '57P01' }, { code: '57P01' }])).toEqual({ heard: 3, queries: 4, rows: [{ one: '1' }] });
  });

  it('runs the query again but counts nothing for a crash, a database starting or stopping, a pooler’s connection exception, or a closed connection', async () => {
    const errors = [{ code: '57P02' }, { code: '57P03' }, { code: '08P01' }, { code: '08006' }, {}];
    expect(await answersHeard(errors)).toEqual({ heard: 0, queries: 6, rows: [{ one: '1' }] });
  });

  it('fails at once, counting nothing in the client, on a full server (class 53: the store hands it to Remote as a reply)', async () => {
    await expect(answersHeard([{ code: '53300' }])).rejects.toThrow(/failed/);
  });

  it('counts each kill of the schema’s creation too, and creates it again (a store starting during a storm of kills)', async () => {
    const { pool, queries } = failing([{ code: '57P01' }, { code: '57P01' }, {}]);
    const { db, heard } = heardDb(pool);
    await new PostgresDialect(db, 'rk_schema_kills', true, false, 500).ready();
    expect({ heard: heard(), queries: queries() }).toEqual({ heard: 2, queries: 4 });
  });

  it('fails at once, counting nothing, when connections are refused', async () => {
    const { pool } = failing([]);
    const refusing = { ...pool, connect: () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' })) };
    const { db, heard } = heardDb(refusing);
    await expect(db.query('SELECT 1')).rejects.toThrow(/ECONNREFUSED/);
    expect(heard()).toBe(0);
  });
});
