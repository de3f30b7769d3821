/**
 * MySqlStore's surface: options validated at construction (naming the class, the option and the
 * value), the exact export list, concurrency leases, bans and reserve/wait taken on the kit's bindings
 * (RowBinding, RowLeases: a lease never booked, nor banned), composites checked when CompositeLimiter
 * is built, a policy name bound twice with other parameters refused, one too long for a row id
 * refused, `createTable: false` leaving the schema to the caller (a missing table is a failure decided
 * by policy, never a thrown error), and the shipped schema SQL creating what the store needs. In CI the server and the binaries the fault suites need must be present (never skipped).
 */
import { BanLimiter, CompositeLimiter, ConcurrencyLimiter, FixedWindowLimiter, MemoryStore, TokenBucketLimiter } from '@ratekeeper/core';
import { fixedWindow, RowBinding, RowLeases } from '@ratekeeper/core/store';
import { afterAll, describe, expect, it } from 'vitest';
import * as api from '../src/index.js';
import { type FailureInfo, MAX_POLICY_NAME, MySqlStore, mysqlSchema } from '../src/index.js';
import { commitRoutine } from '../src/sql.js';
import { createPool, describeMySql, dropTable, hasMySql, inCI, table } from './support/db.js';
import { hasServerBinaries } from './support/server.js';

const pool = createPool(3);
const TABLE = table('api');

afterAll(async () => {
  await dropTable(pool, TABLE).catch(() => undefined);
  await dropTable(pool, `${TABLE}_own`).catch(() => undefined);
  await pool.end();
});

describe('requirements', () => {
  it.runIf(inCI)('has the MariaDB server and the binaries to start its own (CI never skips)', () => {
    expect(hasMySql).toBe(true);
    expect(hasServerBinaries).toBe(true);
  });
});

describe('options', () => {
  it('refuses invalid options by name and value', () => {
    expect(() => new MySqlStore({ client: {} })).toThrow(/^MySqlStore: client must be a mysql2 pool/);
    expect(() => new MySqlStore({ client: pool, table: 'a-b' })).toThrow(/^MySqlStore: table must be .*, got "a-b"/);
    expect(() => new MySqlStore({ client: pool, createTable: 'no' as unknown as boolean })).toThrow(/^MySqlStore: createTable must be a boolean/);
    expect(() => new MySqlStore({ client: pool, time: 'local' as 'server' })).toThrow(/^MySqlStore: time must be 'server' or 'client'/);
    expect(() => new MySqlStore({ client: pool, timeoutMs: 0 })).toThrow(RangeError);
    expect(() => new MySqlStore({ client: pool, onFailure: 'maybe' as 'open' })).toThrow(/^MySqlStore: onFailure must be/);
    expect(() => new MySqlStore({ client: pool, tabel: 'x' } as never)).toThrow(/^MySqlStore: unknown option "tabel"/);
    expect(() => new MySqlStore({ client: pool, leaseTtlMs: 50 })).toThrow(new RangeError('MySqlStore: leaseTtlMs must be an integer from 100 to 86400000, got 50'));
    expect(() => new MySqlStore({ client: pool, leaseTtlMs: '30s' as never })).toThrow(new TypeError('MySqlStore: leaseTtlMs must be an integer from 100 to 86400000, got "30s"'));
  });

  it('has documented defaults', () => {
    const store = new MySqlStore({ client: pool });
    expect([store.table, store.time, store.timeoutMs, store.onFailure, store.leaseTtlMs]).toEqual(['ratekeeper', 'server', 1000, 'fallback', 30_000]);
  });
});

describe('capabilities', () => {
  const store = new MySqlStore({ client: pool, table: TABLE });

  it('takes concurrency leases, bans and reservations; refuses to book or ban a lease, by name', async () => {
    const leases = new ConcurrencyLimiter({ store, limit: 3 });
    expect(leases.binding).toBeInstanceOf(RowLeases);
    await expect(store.reserveAll([leases.binding], 'k', 0, 1, -1)).rejects.toThrow(new TypeError('MySqlStore: a concurrency lease cannot be reserved'));
    expect(() => store.banned(leases.binding, 1000)).toThrow(/^MySqlStore: bans apply to a rate limit bound to this MySqlStore/);
    const limiter = new FixedWindowLimiter({ store, limit: 3, windowMs: 1000 });
    expect(limiter.binding).toBeInstanceOf(RowBinding);
    expect(typeof store.reserveAll).toBe('function');
    expect(new BanLimiter({ limiter, banMs: 1000 }).banMs).toBe(1000);
    const foreign = new FixedWindowLimiter({ store: new MySqlStore({ client: pool, table: TABLE }), limit: 3, windowMs: 1000 });
    expect(() => store.banned(foreign.binding, 1000)).toThrow(/^MySqlStore: bans apply to a rate limit bound to this MySqlStore/);
    await expect(store.reserveAll([foreign.binding], 'k', 0, 1, -1)).rejects.toThrow(/^MySqlStore: composite member 0 is not bound to this MySqlStore/);
  });

  it('checks a composite when it is built', () => {
    const other = new FixedWindowLimiter({ store: new MySqlStore({ client: pool, table: TABLE }), limit: 3, windowMs: 1000 });
    const mine = new TokenBucketLimiter({ store, capacity: 3, refillPerSecond: 1, name: 'api-tb' });
    expect(() => new CompositeLimiter([mine, other])).toThrow(/CompositeLimiter: members on a remote/);
    expect(() => store.prepareAll([mine.binding, other.binding])).toThrow(/^MySqlStore: composite member 1 is not bound to this MySqlStore/);
    expect(() => store.prepareAll([mine.binding, mine.binding])).toThrow(/^MySqlStore: composite members must have distinct policy names; "api-tb" appears twice/);
    expect(() => new CompositeLimiter([mine, new FixedWindowLimiter({ store: new MemoryStore(), limit: 1, windowMs: 1 })])).toThrow();
  });

  it('refuses one policy name bound with other parameters', () => {
    new FixedWindowLimiter({ store, limit: 3, windowMs: 1000, name: 'api-twice' });
    expect(() => new FixedWindowLimiter({ store, limit: 4, windowMs: 1000, name: 'api-twice' })).toThrow(/^MySqlStore: policy name "api-twice" is already bound/);
  });

  it(`refuses a policy name longer than MAX_POLICY_NAME (${MAX_POLICY_NAME}) characters, by name`, () => {
    const policy = new FixedWindowLimiter({ store: new MemoryStore(), limit: 3, windowMs: 1000 }).policy;
    expect(store.bind(fixedWindow, { ...policy, name: 'n'.repeat(MAX_POLICY_NAME) })).toBeInstanceOf(RowBinding);
    const long = 'n'.repeat(MAX_POLICY_NAME + 1);
    expect(() => store.bind(fixedWindow, { ...policy, name: long })).toThrow(new TypeError(`MySqlStore: policy name "${long}" is longer than 191 characters`));
  });
});

describe('exports', () => {
  it('exports exactly the documented names', () => {
    expect(Object.keys(api).sort()).toEqual(
      [
        'CLOSED_RETRY_AFTER_MS',
        'DEFAULT_CONCURRENCY_LEASE_TTL_MS',
        'DEFAULT_TABLE',
        'EXPIRED_GRACE_MS',
        'MAX_POLICY_NAME',
        'MAX_RAW_KEY_LENGTH',
        'MySqlStore',
        'mysqlSchema',
      ].sort(),
    );
  });
});

describeMySql('schema', () => {
  it('with createTable: false, a missing table is a failure decided by policy, and the shipped SQL creates what the store needs', async () => {
    const own = `${TABLE}_own`;
    const store = new MySqlStore({ client: pool, table: own, createTable: false, onFailure: 'closed' });
    const failures: FailureInfo[] = [];
    store.on('failure', (info) => failures.push(info));
    const limiter = new FixedWindowLimiter({ store, limit: 2, windowMs: 60_000, name: 'own' });
    const refused = await limiter.consume('k');
    expect(refused).toMatchObject({ allowed: false, failure: 'closed' });
    expect(failures[0]).toMatchObject({ operation: 'consume', policy: 'own', reason: 'reply' });
    for (const statement of mysqlSchema(own).split('\n--\n')) await pool.query(statement);
    const decided = await Promise.all([limiter.consume('k'), limiter.consume('k'), limiter.consume('k')]);
    expect(decided.map((d) => [d.allowed, d.failure])).toEqual([
      [true, undefined],
      [true, undefined],
      [false, undefined],
    ]);
  });

  it('creates its schema on first use', async () => {
    const store = new MySqlStore({ client: pool, table: TABLE });
    const limiter = new FixedWindowLimiter({ store, limit: 1, windowMs: 60_000, name: 'first' });
    expect((await limiter.consume('k')).allowed).toBe(true);
    expect((await limiter.consume('k')).allowed).toBe(false);
    const [rows] = await pool.query('SELECT ROUTINE_NAME FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE() AND ROUTINE_NAME = ?', [commitRoutine(TABLE)]);
    expect(rows).toHaveLength(1);
  });
});
