/**
 * The public surface: the exact export list, CommonJS and ESM loading of the built package, the
 * schema for migrations, options refused at construction with the class, the option and the value
 * named, capabilities offered (reserve and wait through reserveAll, concurrency leases) and a booking
 * of a lease refused, a ban in front of another store's binding refused, and the failure policy when the database cannot be reached:
 * every call resolves (never rejects) by 'fallback', 'open' or 'closed', reported once per call
 * through 'failure' with no error text in a decision, within the documented bound.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BanLimiter, CompositeLimiter, ConcurrencyLimiter, FixedWindowLimiter, MemoryStore, TokenBucketLimiter } from '@ratekeeper/core';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import * as api from '../src/index.js';
import { RowLeases } from '@ratekeeper/core/store';
import { type FailureInfo, PostgresStore, postgresSchema } from '../src/index.js';
import { PG, describeDb, dropTables, makeClient, pgPool, uniqueTable } from './support/db.js';
import { mutantBuild } from './support/mutant-builds.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const pool = pgPool();
const table = uniqueTable('api');

afterAll(async () => {
  await pool.end();
  await dropTables(table);
});

describe('the package', () => {
  it('exports exactly its documented names', () => {
    expect(Object.keys(api).sort()).toEqual([
      'CLOSED_RETRY_AFTER_MS',
      'DEFAULT_CONCURRENCY_LEASE_TTL_MS',
      'DEFAULT_TABLE',
      'EXPIRED_GRACE_MS',
      'MAX_RAW_KEY_LENGTH',
      'PostgresStore',
      'postgresSchema',
    ]);
  });

  it('loads with require() and with import (the built package)', () => {
    const probe = (code: string, type: string) => execFileSync(process.execPath, ['--input-type', type, '-e', code], { cwd: packageDir, encoding: 'utf8' }).trim();
    const client = `new (require('pg').Pool)({ host: '127.0.0.1' })`;
    expect(probe(`const { PostgresStore } = require('@ratekeeper/postgres'); console.log(new PostgresStore({ client: ${client} }).mode)`, 'commonjs')).toBe('async');
    expect(probe(`import pg from 'pg'; import { PostgresStore } from '@ratekeeper/postgres'; console.log(new PostgresStore({ client: new pg.Pool() }).table)`, 'module')).toBe(
      'ratekeeper',
    );
  });

  it('prints its schema for migrations: the one it creates, on any table, logged or not', async () => {
    const other = `${table}_own`;
    await pool.query(postgresSchema(other));
    const store = new PostgresStore({ client: pool, table: other, createTable: false });
    const limiter = new FixedWindowLimiter({ limit: 1, windowMs: 60_000, store, name: 'migrated' });
    expect((await limiter.consume('k')).allowed).toBe(true);
    expect((await limiter.consume('k')).allowed).toBe(false);
    await dropTables(other);
    expect(postgresSchema('limits.rk', { unlogged: true })).toContain('CREATE UNLOGGED TABLE IF NOT EXISTS "limits"."rk" (');
    expect(() => postgresSchema('x; DROP TABLE y')).toThrow('postgresSchema: table must be a lower-case SQL identifier');
  });
});

describe('construction', () => {
  const client = pool;
  const refusals: [string, unknown, ErrorConstructor, string][] = [
    ['no options', undefined, TypeError, 'PostgresStore: options must be an object with a client, got undefined'],
    ['no client', {}, TypeError, 'PostgresStore: client must be a pg Pool or a postgres.js sql, got undefined'],
    ['a connection string', { client: 'postgres://localhost' }, TypeError, 'PostgresStore: client must be a pg Pool or a postgres.js sql, got "postgres://localhost"'],
    ['a typo', { client, timeoutMS: 5 }, TypeError, 'PostgresStore: unknown option "timeoutMS"'],
    ['a table that is not an identifier', { client, table: 'x; DROP TABLE y' }, TypeError, 'PostgresStore: table must be a lower-case SQL identifier'],
    ['an upper-case table', { client, table: 'Limits' }, TypeError, 'PostgresStore: table must be a lower-case SQL identifier'],
    ['createTable as text', { client, createTable: 'no' }, TypeError, 'PostgresStore: createTable must be a boolean, got "no"'],
    ['an unknown time source', { client, time: 'local' }, TypeError, "PostgresStore: time must be one of 'server', 'client', got \"local\""],
    ['a timeout of 0', { client, timeoutMs: 0 }, RangeError, 'PostgresStore: timeoutMs must be an integer from 1 to 60000, got 0'],
    ['a lease of 50 ms', { client, leaseTtlMs: 50 }, RangeError, 'PostgresStore: leaseTtlMs must be an integer from 100 to 86400000, got 50'],
    ['a lease as text', { client, leaseTtlMs: '30s' }, TypeError, 'PostgresStore: leaseTtlMs must be an integer from 100 to 86400000, got "30s"'],
    ['an unknown policy', { client, onFailure: 'allow' }, TypeError, "PostgresStore: onFailure must be one of 'fallback', 'open', 'closed', got \"allow\""],
    ['a fallback divisor of 0', { client, fallbackDivisor: 0 }, RangeError, "PostgresStore: fallbackDivisor must be 'peers' or an integer from 1 to 1000000, got 0"],
  ];
  for (const [name, options, type, message] of refusals) {
    it(`refuses ${name}`, () => {
      const make = () => new PostgresStore(options as never);
      expect(make).toThrow(type);
      expect(make).toThrow(message);
    });
  }

  it('refuses a client that cannot serve: a pg Client (one connection) and a pg Pool already ended', async () => {
    const single = new pg.Client(PG);
    expect(() => new PostgresStore({ client: single })).toThrow('PostgresStore: client must be a pg Pool, not a pg Client (one connection): new pg.Pool(…), got');
    const ended = pgPool();
    await ended.end();
    expect(() => new PostgresStore({ client: ended })).toThrow('PostgresStore: client must be a pg Pool that has not been ended, got');
  });

  it('decides at once, by the failure policy, on a pool or a postgres.js sql ended after the store was made', async () => {
    for (const kind of ['pg', 'postgres'] as const) {
      const made = makeClient(kind);
      const store = new PostgresStore({ client: made.client, table, fallbackDivisor: 1 });
      const failures: FailureInfo[] = [];
      store.on('failure', (info) => failures.push(info));
      const limiter = new FixedWindowLimiter({ limit: 1, windowMs: 60_000, store, name: `ended-${kind}` });
      expect((await limiter.consume('k')).failure).toBeUndefined();
      await made.end();
      const startedAt = performance.now();
      const decision = await limiter.consume('k2');
      expect(performance.now() - startedAt).toBeLessThan(store.timeoutMs / 2);
      expect(decision.failure).toBe('fallback');
      expect(failures.map((f) => f.reason)).toEqual(['connection']);
    }
  });

  it('takes an SQL reserved word as its table (every statement quotes it)', async () => {
    const store = new PostgresStore({ client, table: 'user' });
    const failures: FailureInfo[] = [];
    store.on('failure', (info) => failures.push(info));
    const limiter = new FixedWindowLimiter({ limit: 1, windowMs: 60_000, store, name: `reserved-${table}` });
    expect((await limiter.consume('k')).allowed).toBe(true);
    expect((await limiter.consume('k')).allowed).toBe(false);
    expect(failures).toEqual([]);
    await limiter.reset('k');
    await pool.query('DROP TABLE IF EXISTS "user", "user_peers"');
  });

  it('accepts a pg Pool and a postgres.js sql', async () => {
    for (const kind of ['pg', 'postgres'] as const) {
      const made = makeClient(kind);
      expect(new PostgresStore({ client: made.client }).mode).toBe('async');
      await made.end();
    }
  });

  it("refuses what it cannot do, by name: a name bound twice, a ban on another store's binding; offers reserve and leases", () => {
    const store = new PostgresStore({ client, table });
    expect(new ConcurrencyLimiter({ limit: 3, store }).binding).toBeInstanceOf(RowLeases);
    const limiter = new FixedWindowLimiter({ limit: 3, windowMs: 1000, store, name: 'once' });
    expect(new BanLimiter({ limiter, banMs: 1000 }).banMs).toBe(1000);
    const other = new FixedWindowLimiter({ limit: 3, windowMs: 1000, store: new PostgresStore({ client, table }), name: 'other' });
    expect(() => store.banned(other.binding, 1000)).toThrow('PostgresStore: bans apply to a rate limit bound to this PostgresStore');
    expect(() => store.banned(new FixedWindowLimiter({ limit: 3, windowMs: 1000 }).binding as never, 1000)).toThrow(
      'PostgresStore: bans apply to a rate limit bound to this PostgresStore',
    );
    expect(typeof store.reserveAll).toBe('function');
    expect(() => new FixedWindowLimiter({ limit: 4, windowMs: 1000, store, name: 'once' })).toThrow('PostgresStore: policy name "once" is already bound with other parameters');
  });

  it("forgets a policy name once no binding holds it (core's PolicyNames: a process that makes limiters per tenant keeps no name for ever)", async () => {
    const { setFlagsFromString } = await import('node:v8');
    const { runInNewContext } = await import('node:vm');
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const { PostgresStore: Forever } = (await import(mutantBuild('names-forever'))) as { PostgresStore: typeof PostgresStore };
    const stores = [new PostgresStore({ client, table }), new Forever({ client, table })];
    for (const store of stores) for (let i = 0; i < 10_000; i++) new FixedWindowLimiter({ limit: 3, windowMs: 1000, store, name: `tenant-${i}` });
    for (let i = 0; i < 5 && (stores[0] as PostgresStore).names > 0; i++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(stores.map((s) => s.names)).toEqual([0, 10_000]);
  });

  it('refuses a composite with a member of another store, when it is built', () => {
    const store = new PostgresStore({ client, table });
    const ours = new FixedWindowLimiter({ limit: 3, windowMs: 1000, store, name: 'ours' });
    const theirs = new FixedWindowLimiter({ limit: 3, windowMs: 1000, store: new PostgresStore({ client, table }), name: 'theirs' });
    expect(() => new CompositeLimiter([ours, theirs])).toThrow(TypeError);
  });
});

describeDb('a database that cannot be reached', () => {
  // Nothing listens on port 1: every connection is refused at once.
  const unreachable = () => new pg.Pool({ ...PG, port: 1 });

  for (const onFailure of ['fallback', 'open', 'closed'] as const) {
    it(`decides by onFailure '${onFailure}' at once, reports each call, never rejects`, async () => {
      const down = unreachable();
      const store = new PostgresStore({ client: down, table, onFailure, fallbackDivisor: 1 });
      const failures: FailureInfo[] = [];
      store.on('failure', (info) => failures.push(info));
      const limiter = new TokenBucketLimiter({ capacity: 2, refillPerSecond: 0.001, store, name: `down-${onFailure}` });
      const startedAt = performance.now();
      const decisions = [];
      for (let i = 0; i < 4; i++) decisions.push(await limiter.consume('k'));
      expect(performance.now() - startedAt).toBeLessThan(store.timeoutMs);
      const allowed = decisions.map((d) => d.allowed);
      expect(allowed).toEqual(onFailure === 'fallback' ? [true, true, false, false] : onFailure === 'open' ? [true, true, true, true] : [false, false, false, false]);
      expect(new Set(decisions.map((d) => d.failure))).toEqual(new Set([onFailure]));
      expect(failures.map((f) => f.operation)).toEqual(['consume', 'consume', 'consume', 'consume']);
      expect(failures[0]?.reason).toBe('connection');
      expect(failures.slice(1).map((f) => f.reason)).toEqual(['unavailable', 'unavailable', 'unavailable']);
      for (const d of decisions) expect(JSON.stringify(d)).not.toContain('ECONNREFUSED');
      await limiter.reset('k');
      await down.end();
    });
  }

  it("decides a composite by the fallback's own all-or-nothing", async () => {
    const down = unreachable();
    const store = new PostgresStore({ client: down, table, fallbackDivisor: 1, fallbackStore: new MemoryStore() });
    store.on('failure', () => {});
    const a = new FixedWindowLimiter({ limit: 2, windowMs: 60_000, store, name: 'comp-a' });
    const b = new FixedWindowLimiter({ limit: 3, windowMs: 60_000, store, name: 'comp-b' });
    const composite = new CompositeLimiter([a, b]);
    const allowed = [];
    for (let i = 0; i < 3; i++) allowed.push((await composite.consume('k')).allowed);
    expect(allowed).toEqual([true, true, false]);
    await down.end();
  });

  it("decides a banned limiter by the failure policy, with the fallback's own ban, and reports each call by its operation", async () => {
    const down = unreachable();
    const store = new PostgresStore({ client: down, table, fallbackDivisor: 1 });
    const failures: FailureInfo[] = [];
    store.on('failure', (info) => failures.push(info));
    const limiter = new BanLimiter({ limiter: new FixedWindowLimiter({ limit: 2, windowMs: 60_000, store, name: 'down-ban' }), banMs: 3_600_000 });
    const decisions = [];
    for (let i = 0; i < 3; i++) decisions.push(await limiter.consume('k'));
    decisions.push(await limiter.peek('k'));
    // The fallback's own window denies the third request, which bans the key there (core's Fallback.bannedFor); the
    // refund goes to it and lifts that ban, as a refund lifts a ban on any store.
    expect(decisions.map((d) => [d.allowed, d.failure])).toEqual([
      [true, 'fallback'],
      [true, 'fallback'],
      [false, 'fallback'],
      [false, 'fallback'],
    ]);
    expect(decisions[2]?.retryAfterMs).toBe(3_600_000);
    await limiter.refund('k');
    expect(await limiter.allow('k')).toBe(true);
    await limiter.reset('k');
    expect(failures.map((f) => f.operation)).toEqual(['consume', 'consume', 'consume', 'peek', 'refund', 'allow', 'reset']);
    await down.end();
  });
});
