/**
 * The public surface: the exact export list, CommonJS and ESM loading of the built package, options
 * refused at construction with the class, the option and the value named (a driver the runtime lacks
 * included), capabilities misused refused at construction by name, and hostile keys kept apart.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BanLimiter, CompositeLimiter, ConcurrencyLimiter, FixedWindowLimiter, ManualClock, MemoryStore, TokenBucketLimiter, reserve } from '@ratekeeper/core';
import { afterAll, describe, expect, it } from 'vitest';
import * as api from '../src/index.js';
import { MAX_RAW_KEY_LENGTH, SqliteStore } from '../src/index.js';
import { loadDriver } from '../src/driver.js';
import { tempDir } from './support/files.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const dir = tempDir();
afterAll(() => dir.remove());

describe('the package', () => {
  it('exports exactly its documented names', () => {
    expect(Object.keys(api).sort()).toEqual([
      'CLOSED_RETRY_AFTER_MS',
      'DEFAULT_BUSY_TIMEOUT_MS',
      'DEFAULT_CONCURRENCY_LEASE_TTL_MS',
      'DEFAULT_PROBE_INTERVAL_MS',
      'EXPIRED_GRACE_MS',
      'MAX_RAW_KEY_LENGTH',
      'SqliteStore',
    ]);
  });

  it('loads with require() and with import (the built package)', () => {
    const probe = (code: string, type: string) => execFileSync(process.execPath, ['--input-type', type, '-e', code], { cwd: packageDir, encoding: 'utf8' }).trim();
    const path = JSON.stringify(dir.file());
    expect(probe(`const { SqliteStore } = require('@ratekeeper/sqlite'); console.log(new SqliteStore({ path: ${path} }).driver)`, 'commonjs')).toBe(AUTO);
    expect(probe(`import { SqliteStore } from '@ratekeeper/sqlite'; console.log(new SqliteStore({ path: ${path} }).mode)`, 'module')).toBe('sync');
  });
});

describe('construction', () => {
  const path = dir.file();
  const refusals: [string, unknown, ErrorConstructor, string][] = [
    ['no options', undefined, TypeError, 'SqliteStore: options must be an object with a path, got undefined'],
    ['no path', {}, TypeError, 'SqliteStore: path must be the path of a database file (a non-empty string), got undefined'],
    ['an empty path', { path: '' }, TypeError, 'SqliteStore: path must be the path of a database file (a non-empty string), got ""'],
    ['a typo', { path, busyTimeoutMS: 5 }, TypeError, 'SqliteStore: unknown option "busyTimeoutMS"'],
    ['a negative busy timeout', { path, busyTimeoutMs: -1 }, RangeError, 'SqliteStore: busyTimeoutMs must be an integer from 0 to 60000, got -1'],
    ['a busy timeout as text', { path, busyTimeoutMs: '100' }, TypeError, 'SqliteStore: busyTimeoutMs must be an integer from 0 to 60000, got "100"'],
    ['an unknown policy', { path, onFailure: 'allow' }, TypeError, "SqliteStore: onFailure must be one of 'fallback', 'open', 'closed', got \"allow\""],
    ['maxKeys of 0', { path, maxKeys: 0 }, RangeError, 'SqliteStore: maxKeys must be an integer from 1 to 1000000000, got 0'],
    ['a fractional lease TTL', { path, leaseTtlMs: 1.5 }, RangeError, 'SqliteStore: leaseTtlMs must be an integer from 100 to 86400000, got 1.5'],
    ['a fallback divisor of 0', { path, fallbackDivisor: 0 }, RangeError, "SqliteStore: fallbackDivisor must be 'peers' or an integer from 1 to 1000000, got 0"],
    [
      'an async fallback store',
      { path, fallbackStore: { mode: 'async', bind() {} } },
      TypeError,
      'SqliteStore: fallbackStore must be a synchronous store with consumeAll (such as a MemoryStore), got',
    ],
    ['an unknown driver', { path, driver: 'sqlite3' }, TypeError, "SqliteStore: driver must be one of 'auto', 'better-sqlite3', 'bun:sqlite', 'node:sqlite', got \"sqlite3\""],
  ];
  for (const [what, options, type, message] of refusals) {
    it(`refuses ${what}`, () => {
      const make = () => new SqliteStore(options as never);
      expect(make).toThrow(type);
      expect(make).toThrow(message);
    });
  }

  it('refuses a driver this runtime lacks, by name and with the reason', () => {
    expect(() => new SqliteStore({ path, driver: 'bun:sqlite' })).toThrow(new TypeError(`SqliteStore: driver 'bun:sqlite' needs Bun, got Node ${process.versions.node}`));
    const nodeHasIt = loadDriverOrUndefined('node:sqlite');
    if (nodeHasIt) expect(new SqliteStore({ path, driver: 'node:sqlite' }).driver).toBe('node:sqlite');
    else
      expect(() => new SqliteStore({ path, driver: 'node:sqlite' })).toThrow(
        `SqliteStore: driver 'node:sqlite' is not available: Node ${process.versions.node} has no node:sqlite (it needs Node 22.13 or later)`,
      );
  });

  // On Node 22 and 24 (scripts/test-node.sh) the workspace's better-sqlite3 addon is built for Node 20:
  // it cannot load, as after a Node upgrade without a rebuild.
  it('takes better-sqlite3 where its addon loads, else node:sqlite; refuses better-sqlite3 at construction where it cannot load', () => {
    expect(new SqliteStore({ path }).driver).toBe(AUTO);
    if (loadDriverOrUndefined('better-sqlite3')) return;
    expect(() => new SqliteStore({ path, driver: 'better-sqlite3' })).toThrow(/^SqliteStore: driver 'better-sqlite3' is not available: cannot be loaded \(/);
  });

  it('never mutates the options', () => {
    const options = Object.freeze({ path, busyTimeoutMs: 100 });
    expect(new SqliteStore(options).busyTimeoutMs).toBe(100);
  });
});

describe('capabilities', () => {
  const path = dir.file();
  const store = new SqliteStore({ path });
  const clock = new ManualClock(1_700_000_000_000);

  it('backs every core limiter synchronously: composites, refunds, bans, leases, reservations', () => {
    const limiter = new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, store, clock });
    expect(limiter.mode).toBe('sync');
    expect(limiter.consume('k')).toMatchObject({ allowed: true, remaining: 1 });
    const composite = new CompositeLimiter([limiter, new FixedWindowLimiter({ limit: 5, windowMs: 1000, store, clock })]);
    expect(composite.consume('k').allowed).toBe(true);
    expect(composite.consume('k').allowed).toBe(false);
    limiter.refund('k', 1);
    expect(limiter.peek('k').allowed).toBe(true);
    const bans = new BanLimiter({ limiter: new FixedWindowLimiter({ limit: 1, windowMs: 1000, store, clock, name: 'login' }), banMs: 60_000 });
    bans.consume('u');
    expect(bans.consume('u')).toMatchObject({ allowed: false, retryAfterMs: 60_000 });
    const leases = new ConcurrencyLimiter({ limit: 1, store, clock });
    expect([leases.allow('j'), leases.allow('j')]).toEqual([true, false]);
    leases.release('j');
    expect(leases.allow('j')).toBe(true);
    const booking = reserve(new FixedWindowLimiter({ limit: 1, windowMs: 1000, store, clock, name: 'queue' }), 'q');
    expect([booking.ok, booking.delayMs]).toEqual([true, 0]);
  });

  it('refuses a composite over two stores, or two members of one policy name, when it is built', () => {
    const other = new SqliteStore({ path });
    expect(() => new CompositeLimiter([new FixedWindowLimiter({ limit: 1, windowMs: 1000, store }), new FixedWindowLimiter({ limit: 2, windowMs: 1000, store: other })])).toThrow(
      'CompositeLimiter: members on a remote store must all share one store that supports consumeAll',
    );
    expect(() => store.prepareAll([new FixedWindowLimiter({ limit: 2, windowMs: 1000, store: other }).binding])).toThrow(
      'SqliteStore: composite member 0 is not bound to this SqliteStore',
    );
    expect(
      () =>
        new CompositeLimiter([
          new FixedWindowLimiter({ limit: 1, windowMs: 1000, store, name: 'twin' }),
          new FixedWindowLimiter({ limit: 1, windowMs: 1000, store, name: 'twin' }),
        ]),
    ).toThrow('SqliteStore: composite members must have distinct policy names; "twin" appears twice');
    expect(
      () => new CompositeLimiter([new FixedWindowLimiter({ limit: 1, windowMs: 1000, store }), new FixedWindowLimiter({ limit: 1, windowMs: 1000, store: new MemoryStore() })]),
    ).toThrow(TypeError);
  });

  it('refuses a policy name bound twice with other parameters', () => {
    new FixedWindowLimiter({ limit: 3, windowMs: 1000, store, name: 'api' });
    expect(() => new FixedWindowLimiter({ limit: 4, windowMs: 1000, store, name: 'api' })).toThrow(
      'SqliteStore: policy name "api" is already bound with other parameters; give each limit its own name',
    );
  });
});

describe('hostile keys', () => {
  const store = new SqliteStore({ path: dir.file() });
  const clock = new ManualClock(0);
  const limiter = new FixedWindowLimiter({ limit: 1, windowMs: 60_000, store, clock });
  const long = 'x'.repeat(MAX_RAW_KEY_LENGTH);
  const keys = ['', '\ud800', '\udc00', '\ufffd', '\u0000', 'a\u0000', 'a', long, `${long}a`, `${long}b`, `${'y'.repeat(100_000)}`, 'é', 'e\u0301'];

  it('keeps every key apart: a lone surrogate, U+FFFD, NUL, long keys differing at the end', () => {
    expect(keys.map((k) => limiter.consume(k).allowed)).toEqual(keys.map(() => true));
    expect(keys.map((k) => limiter.consume(k).allowed)).toEqual(keys.map(() => false));
  });

  it('stores a key longer than MAX_RAW_KEY_LENGTH as 33 bytes (after the row id’s policy name)', () => {
    store.close();
    const db = loadDriver('test', 'auto').open(store.path);
    // A row id is the name's length (2 bytes) and its UTF-16 code units, then the key's (core's row-id.ts).
    const head = 2 + 2 * limiter.policy.name.length;
    const lengths = db
      .prepare('SELECT length(id) AS n FROM rk_rows ORDER BY n DESC LIMIT 4')
      .all()
      .map((r) => (r['n'] as number) - head);
    db.close();
    expect(lengths).toEqual([2 * MAX_RAW_KEY_LENGTH, 33, 33, 33]);
  });
});

function loadDriverOrUndefined(name: 'better-sqlite3' | 'node:sqlite'): boolean {
  try {
    loadDriver('probe', name);
    return true;
  } catch {
    return false;
  }
}

/** AUTO: the driver 'auto' takes on Node, better-sqlite3 where its addon loads. */
const AUTO = loadDriverOrUndefined('better-sqlite3') ? 'better-sqlite3' : 'node:sqlite';
