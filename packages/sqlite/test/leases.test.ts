/**
 * Across processes, the shared checks (@ratekeeper/store-contract's leaseChecks): four stores on four
 * connections to one file, with this package's mutants 'leases-never-expire' and 'renew-ignored'.
 *
 * Concurrency leases expire by time, so a crashed process cannot hold a key's capacity for good: a
 * child takes 3 of 3 leases and is killed with SIGKILL; its leases still count until leaseTtlMs after
 * they were taken (the default, 30 s, on the limiters' clock, here a ManualClock), then every unit is
 * free again, and the row of a key no one asks for again is deleted by other keys' admissions (through
 * the expiry index, without a scan, EXPIRED_GRACE_MS after its leases expired). A live holder's renewal keeps its leases (and never revives an expired
 * one). The same check catches a mutant build whose leases never expire.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConcurrencyLimiter, ManualClock } from '@ratekeeper/core';
import { leaseChecks } from '@ratekeeper/store-contract';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONCURRENCY_LEASE_TTL_MS, EXPIRED_GRACE_MS, SqliteStore } from '../src/index.js';
import { nameHead, rowId } from '@ratekeeper/core/store';
import { loadDriver } from '../src/driver.js';
import { tempDir } from './support/files.js';
import { mutantBuild } from './support/mutant-builds.js';

const HOLDER = fileURLToPath(new URL('./support/lease-holder.mjs', import.meta.url));
const DIST = pathToFileURL(fileURLToPath(new URL('../dist/esm/index.js', import.meta.url))).href;
const T = 1_700_000_000_000;
const dir = tempDir();
const opened: SqliteStore[] = [];
afterAll(() => {
  for (const store of opened) store.close();
  dir.remove();
});

leaseChecks({
  ttlMs: DEFAULT_CONCURRENCY_LEASE_TTL_MS,
  stores: async (mutant) => {
    const Made = mutant === undefined ? SqliteStore : ((await import(mutantBuild(mutant))) as { SqliteStore: typeof SqliteStore }).SqliteStore;
    const path = dir.file();
    return () => {
      const store = new Made({ path });
      opened.push(store);
      return store;
    };
  },
});

async function crashedHolder(dist: string): Promise<string> {
  const path = dir.file();
  const marker = `${path}.marker`;
  const child: ChildProcess = spawn(process.execPath, [HOLDER, dist, path, marker, String(T)], { stdio: ['ignore', 'inherit', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const until = performance.now() + 60_000;
  while (!(existsSync(marker) && readFileSync(marker, 'utf8') === '4')) {
    if (performance.now() > until) throw new Error('the lease holder never took its leases');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  child.kill('SIGKILL');
  await exited;
  return path;
}

/** leasesOf counts the leases in `key`'s row of policy 'leases' (core's lease rows: a count, then three numbers a lease). */
function leasesOf(path: string, key: string): number {
  const db = loadDriver('test', 'auto').open(path);
  const state = db.prepare('SELECT state FROM rk_rows WHERE id = ?').get(Buffer.from(rowId(nameHead('leases'), key), 'hex'))?.['state'] as Uint8Array | undefined;
  db.close();
  return state === undefined ? 0 : (state.byteLength / 8 - 1) / 3;
}

/** admittedAfter is how many of 3 requests for 'crashed' a fresh process admits at `at`. */
function admittedAt(path: string, clock: ManualClock): number {
  const store = new SqliteStore({ path });
  const limiter = new ConcurrencyLimiter({ limit: 3, store, clock, name: 'leases' });
  const admitted = [limiter.consume('crashed'), limiter.consume('crashed'), limiter.consume('crashed')].filter((d) => d.allowed).length;
  store.close();
  return admitted;
}

describe('leases of a process killed with SIGKILL', () => {
  it('count until leaseTtlMs after they were taken, then free every unit', async () => {
    const path = await crashedHolder(DIST);
    const clock = new ManualClock(T + DEFAULT_CONCURRENCY_LEASE_TTL_MS - 1);
    expect(admittedAt(path, clock)).toBe(0);
    clock.set(T + DEFAULT_CONCURRENCY_LEASE_TTL_MS);
    expect(admittedAt(path, clock)).toBe(3);
  });

  it('are deleted by admissions on other keys when no one asks for their key again', async () => {
    const path = await crashedHolder(DIST);
    expect(leasesOf(path, 'elsewhere')).toBe(1);
    const store = new SqliteStore({ path });
    // Once expired, a row is written 30 s past that (src/rows.ts) and deleted EXPIRED_GRACE_MS after.
    const clock = new ManualClock(T + DEFAULT_CONCURRENCY_LEASE_TTL_MS + 30_000 + EXPIRED_GRACE_MS);
    const limiter = new ConcurrencyLimiter({ limit: 3, store, clock, name: 'leases' });
    limiter.consume('a');
    limiter.consume('b');
    store.close();
    expect([leasesOf(path, 'elsewhere'), leasesOf(path, 'crashed')]).toEqual([0, 0]);
  });

  it('catches a mutant whose leases never expire', async () => {
    const path = await crashedHolder(mutantBuild('leases-never-expire'));
    const { SqliteStore: Mutant } = (await import(mutantBuild('leases-never-expire'))) as { SqliteStore: typeof SqliteStore };
    const store = new Mutant({ path });
    const limiter = new ConcurrencyLimiter({ limit: 3, store, clock: new ManualClock(T + DEFAULT_CONCURRENCY_LEASE_TTL_MS), name: 'leases' });
    expect(limiter.consume('crashed').allowed).toBe(false);
    store.close();
  });
});

describe('a live holder', () => {
  it('keeps its leases by renewing them, and never revives one that expired', () => {
    const path = dir.file();
    const clock = new ManualClock(T);
    const holderStore = new SqliteStore({ path });
    const holder = new ConcurrencyLimiter({ limit: 1, store: holderStore, clock, name: 'renewed' });
    const other = new ConcurrencyLimiter({ limit: 1, store: new SqliteStore({ path }), clock, name: 'renewed' });
    expect(holder.consume('k').allowed).toBe(true);
    const binding = holder.binding as unknown as { renew(now: number): void; renewing: boolean };
    expect(binding.renewing).toBe(true);
    binding.renew(T + DEFAULT_CONCURRENCY_LEASE_TTL_MS / 2);
    clock.set(T + DEFAULT_CONCURRENCY_LEASE_TTL_MS);
    expect(other.consume('k').allowed).toBe(false); // renewed: still held
    clock.set(T + DEFAULT_CONCURRENCY_LEASE_TTL_MS / 2 + DEFAULT_CONCURRENCY_LEASE_TTL_MS);
    expect(other.consume('k').allowed).toBe(true); // expired: another request has its place
    binding.renew(clock.now()); // too late: not revived
    expect(binding.renewing).toBe(false);
    other.release('k');
    expect(other.consume('k').allowed).toBe(true);
    holderStore.close();
  });
});
