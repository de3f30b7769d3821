/**
 * A MySqlStore that cannot reach its database says so, with DEFAULT options: without a 'failure'
 * listener, its first failure of each cause warns once per process (a 'RatekeeperWarning' on Node's
 * process warnings, the trust-proxy warning's channel), naming the cause, what decides meanwhile and
 * how to silence it (`failureWarning: false`, the option every store with a failure policy takes).
 * - A pool pointed at a closed port warns RATEKEEPER_MYSQL_NOT_CONNECTED naming ECONNREFUSED, once
 *   for any number of failed calls.
 * - A store that answered and then loses its server (a relay in front of the machine's MariaDB,
 *   closed) warns a different code, not "never connected".
 * - A store that answers never warns; a 'failure' listener or failureWarning: false silences it.
 * The mutant 'silent-failures' (the store's warning call removed, today's behaviour before this
 * warning) stays silent in the first scenario and is caught.
 */
import { FixedWindowLimiter } from '@ratekeeper/core';
import { forgetFailureWarnings } from '@ratekeeper/core/store';
import mysql from 'mysql2/promise';
import { afterAll, afterEach, expect, it } from 'vitest';
import { MySqlStore } from '../src/index.js';
import { MYSQL_URL, createPool, describeMySql, dropTable, table } from './support/db.js';
import { mutantBuild } from './support/mutant-builds.js';
import { closedPort, relay, warningsOnProcess } from '@ratekeeper/store-contract';

const name = table('warn');
const target = new URL(MYSQL_URL);
const { ours, settle } = warningsOnProcess(forgetFailureWarnings);
const closers: (() => unknown)[] = [];

afterEach(async () => {
  // In order: a listener goes before the pool whose connections it holds.
  for (const close of closers.splice(0)) await close();
});
afterAll(async () => {
  const pool = createPool(1);
  await dropTable(pool, name).finally(() => pool.end());
});

function poolOn(port: number): mysql.Pool {
  const pool = mysql.createPool({ host: '127.0.0.1', port, user: decodeURIComponent(target.username), database: target.pathname.slice(1) });
  closers.push(() => pool.end().catch(() => {}));
  return pool;
}

/** limiterOn is a fixed window of 2 on a store of `build` with default options (the table aside). */
async function limiterOn(pool: mysql.Pool, build?: string, extra: object = {}) {
  const { MySqlStore: Store } = (build === undefined ? { MySqlStore } : await import(build)) as { MySqlStore: typeof MySqlStore };
  const store = new Store({ client: pool, table: name, ...extra });
  return { store, limiter: new FixedWindowLimiter({ store, limit: 2, windowMs: 1e12, name: `w${Math.random().toString(36).slice(2, 8)}` }) };
}

const failuresOf = async (limiter: FixedWindowLimiter<'async'>, n: number) => {
  const decisions = [];
  for (let i = 0; i < n; i++) decisions.push(await limiter.consume('k'));
  return decisions.map((d) => d.failure);
};

describeMySql('the failure warning of a MySqlStore, DEFAULT options', () => {
  it('warns once, never connected, naming ECONNREFUSED, for a pool pointed at a closed port', async () => {
    const { limiter } = await limiterOn(poolOn(await closedPort()));
    expect(await failuresOf(limiter, 4)).toEqual(['fallback', 'fallback', 'fallback', 'fallback']);
    await settle();
    expect(ours().map((w) => w.code)).toEqual(['RATEKEEPER_MYSQL_NOT_CONNECTED']);
    const [warning] = ours();
    expect(warning?.message).toContain('MySqlStore: MySQL could not decide');
    expect(warning?.message).toContain("onFailure: 'fallback'");
    expect(warning?.message).toContain('the pool never connected to MySQL: the connection was refused (ECONNREFUSED)');
    expect(warning?.message).toContain('failureWarning: false');
  });

  it('catches the mutant that decides in silence', async () => {
    const { limiter } = await limiterOn(poolOn(await closedPort()), mutantBuild('silent-failures'));
    expect(await failuresOf(limiter, 2)).toEqual(['fallback', 'fallback']);
    await settle();
    expect(ours()).toEqual([]);
  });

  it('warns another cause, not "never connected", once the database has answered and then goes away', async () => {
    const cut = await relay(target.hostname, Number(target.port || 3306));
    closers.push(cut.close);
    const { limiter } = await limiterOn(poolOn(cut.port));
    expect(await failuresOf(limiter, 1)).toEqual([undefined]);
    await cut.close();
    expect(await failuresOf(limiter, 2)).toEqual(['fallback', 'fallback']);
    await settle();
    expect(ours().map((w) => w.code)).toEqual(['RATEKEEPER_MYSQL_REFUSED']);
    expect(ours()[0]?.message).toContain('MySQL refused the connection (ECONNREFUSED): it stopped or is restarting');
  });

  it('says nothing for a store that answers', async () => {
    const { limiter } = await limiterOn(poolOn(Number(target.port || 3306)));
    expect(await failuresOf(limiter, 3)).toEqual([undefined, undefined, undefined]);
    await settle();
    expect(ours()).toEqual([]);
  });

  it("is silenced by a 'failure' listener, and by failureWarning: false", async () => {
    const port = await closedPort();
    const listened = await limiterOn(poolOn(port));
    const seen: string[] = [];
    listened.store.on('failure', (info) => void seen.push(info.reason));
    const off = await limiterOn(poolOn(port), undefined, { failureWarning: false });
    expect(await failuresOf(listened.limiter, 1)).toEqual(['fallback']);
    expect(await failuresOf(off.limiter, 1)).toEqual(['fallback']);
    await settle();
    expect(seen).toEqual(['connection']);
    expect(ours()).toEqual([]);
  });

  it('refuses a failureWarning that is not a boolean, naming it', () => {
    expect(() => new MySqlStore({ client: poolOn(3306), failureWarning: 'no' as never })).toThrowError(new TypeError('MySqlStore: failureWarning must be a boolean, got "no"'));
  });
});
