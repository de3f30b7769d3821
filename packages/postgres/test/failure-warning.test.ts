/**
 * A PostgresStore that cannot reach PostgreSQL says so, with DEFAULT options: without a 'failure'
 * listener, its first failure of each cause warns once per process (a 'RatekeeperWarning' on Node's
 * process warnings, the trust-proxy warning's channel), naming the cause, what decides meanwhile and
 * how to silence it (`failureWarning: false`, the option every store with a failure policy takes).
 * - A client pointed at a closed port (pg and postgres.js) warns RATEKEEPER_POSTGRES_NOT_CONNECTED
 *   naming ECONNREFUSED, once for any number of failed calls; a client reaching a port that accepts
 *   connections and answers nothing warns the same code naming timeoutMs' 1000 ms.
 * - A store that answered and then loses its server (a relay in front of the machine's PostgreSQL,
 *   closed) warns a different code, not "never connected".
 * - A store that answers never warns; a 'failure' listener or failureWarning: false silences it.
 * The mutant 'silent-failures' (the store's warning call removed, today's behaviour before this
 * warning) stays silent in the first scenario and is caught.
 */
import { FixedWindowLimiter } from '@ratekeeper/core';
import { forgetFailureWarnings } from '@ratekeeper/core/store';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, afterEach, expect, it } from 'vitest';
import { PostgresStore } from '../src/index.js';
import { PG, describeDb, dropTables, uniqueTable } from './support/db.js';
import { mutantBuild } from './support/mutant-builds.js';
import { closedPort, listening, relay, warningsOnProcess } from '@ratekeeper/store-contract';

const table = uniqueTable('warn');
const { ours, settle } = warningsOnProcess(forgetFailureWarnings);
const closers: (() => unknown)[] = [];

afterEach(async () => {
  // In order: a listener goes before the pool whose connections it holds (pool.end waits for a connect in flight).
  for (const close of closers.splice(0)) await close();
});
afterAll(() => dropTables(table));

function client(kind: 'pg' | 'postgres', port: number): unknown {
  if (kind === 'pg') {
    const pool = new pg.Pool({ ...PG, port });
    pool.on('error', () => {});
    closers.push(() => pool.end());
    return pool;
  }
  const sql = postgres({ host: PG.host, port, username: PG.user, database: PG.database, onnotice: () => {} });
  closers.push(() => sql.end({ timeout: 0 }));
  return sql;
}

/** limiterOn is a fixed window of 2 on a store of `build` with default options (the table aside). */
async function limiterOn(clientOf: unknown, build?: string, extra: object = {}) {
  const { PostgresStore: Store } = (build === undefined ? { PostgresStore } : await import(build)) as { PostgresStore: typeof PostgresStore };
  const store = new Store({ client: clientOf, table, ...extra });
  return { store, limiter: new FixedWindowLimiter({ store, limit: 2, windowMs: 1e12, name: `w${Math.random().toString(36).slice(2, 8)}` }) };
}

const failuresOf = async (limiter: FixedWindowLimiter<'async'>, n: number) => {
  const decisions = [];
  for (let i = 0; i < n; i++) decisions.push(await limiter.consume('k'));
  return decisions.map((d) => d.failure);
};

describeDb('the failure warning of a PostgresStore, DEFAULT options', () => {
  it.each(['pg', 'postgres'] as const)('warns once, never connected, naming ECONNREFUSED, for a %s client pointed at a closed port', async (kind) => {
    const { limiter } = await limiterOn(client(kind, await closedPort()));
    expect(await failuresOf(limiter, 4)).toEqual(['fallback', 'fallback', 'fallback', 'fallback']);
    await settle();
    expect(ours().map((w) => w.code)).toEqual(['RATEKEEPER_POSTGRES_NOT_CONNECTED']);
    const [warning] = ours();
    expect(warning?.message).toContain('PostgresStore: PostgreSQL could not decide');
    expect(warning?.message).toContain("onFailure: 'fallback'");
    expect(warning?.message).toContain('the client never connected to PostgreSQL: the connection was refused (ECONNREFUSED)');
    expect(warning?.message).toContain('failureWarning: false');
  });

  it('catches the mutant that decides in silence', async () => {
    const { limiter } = await limiterOn(client('pg', await closedPort()), mutantBuild('silent-failures'));
    expect(await failuresOf(limiter, 2)).toEqual(['fallback', 'fallback']);
    await settle();
    expect(ours()).toEqual([]);
  });

  it('warns never connected, naming timeoutMs, for a port that accepts connections and answers nothing', async () => {
    const silent = await listening();
    closers.push(silent.close);
    const { limiter } = await limiterOn(client('pg', silent.port));
    expect(await failuresOf(limiter, 1)).toEqual(['fallback']);
    await settle();
    expect(ours().map((w) => w.code)).toEqual(['RATEKEEPER_POSTGRES_NOT_CONNECTED']);
    expect(ours()[0]?.message).toContain('PostgreSQL has never answered this store: nothing for 1000 ms (timeoutMs)');
  });

  it('warns another cause, not "never connected", once PostgreSQL has answered and then goes away', async () => {
    const cut = await relay(PG.host, PG.port);
    closers.push(cut.close);
    const { limiter } = await limiterOn(client('pg', cut.port));
    expect(await failuresOf(limiter, 1)).toEqual([undefined]);
    await cut.close();
    expect(await failuresOf(limiter, 2)).toEqual(['fallback', 'fallback']);
    await settle();
    expect(ours().map((w) => w.code)).toEqual(['RATEKEEPER_POSTGRES_REFUSED']);
    expect(ours()[0]?.message).toContain('PostgreSQL refused the connection (ECONNREFUSED): it stopped or is restarting');
  });

  it('says nothing for a store that answers', async () => {
    const pool = client('pg', PG.port);
    const { limiter } = await limiterOn(pool);
    expect(await failuresOf(limiter, 3)).toEqual([undefined, undefined, undefined]);
    await settle();
    expect(ours()).toEqual([]);
  });

  it("is silenced by a 'failure' listener, and by failureWarning: false", async () => {
    const port = await closedPort();
    const listened = await limiterOn(client('pg', port));
    const seen: string[] = [];
    listened.store.on('failure', (info) => void seen.push(info.reason));
    const off = await limiterOn(client('pg', port), undefined, { failureWarning: false });
    expect(await failuresOf(listened.limiter, 1)).toEqual(['fallback']);
    expect(await failuresOf(off.limiter, 1)).toEqual(['fallback']);
    await settle();
    expect(seen).toEqual(['connection']);
    expect(ours()).toEqual([]);
  });

  it('refuses a failureWarning that is not a boolean, naming it', () => {
    expect(() => new PostgresStore({ client: client('pg', PG.port), failureWarning: 'no' as never })).toThrowError(
      new TypeError('PostgresStore: failureWarning must be a boolean, got "no"'),
    );
  });
});
