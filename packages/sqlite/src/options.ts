/**
 * SqliteStore's options, validated once at construction: a TypeError for a wrong type, a RangeError
 * for a number out of range, each naming the option and the value (`SqliteStore: busyTimeoutMs must be
 * …, got …`), and a TypeError for a name that is not an option, so a typo never runs on a default.
 * The driver is loaded here too: one the runtime lacks is refused now, by name (./file/driver.ts). Nothing
 * is coerced; the caller's object is never mutated.
 */
import { DEFAULT_MAX_KEYS, MemoryStore, type Store } from '@ratekeeper/core';
import { DEFAULT_CONCURRENCY_LEASE_TTL_MS, describeValue, failureWarningOption, refuseUnknown } from '@ratekeeper/core/store';
import type { FailurePolicy, FallbackStore } from '@ratekeeper/core/store';
import { DRIVERS, type Driver, type DriverChoice, loadDriver } from './file/driver.js';

export interface SqliteStoreOptions {
  /** The database file every process on the host opens (created with its tables if missing). */
  readonly path: string;
  /** 'auto' (default): bun:sqlite on Bun, else better-sqlite3, else node:sqlite; or one of them by name. */
  readonly driver?: DriverChoice;
  /**
   * How long the file may go without any connection committing, while a decision waits for the write
   * lock, before it counts as failing, in ms (default 5,000; an integer from 0 to 60,000). Processes
   * that keep deciding are waited for however long the queue; only a lock holder that stopped (SIGSTOP,
   * a hung disk, a long administrative transaction) outlasts it, and a killed one releases the lock at
   * once. 5 s because a machine short of CPU can leave a holder unscheduled for over a second (seen at
   * a load of 45 on 2 cores). The wait blocks this process: the store is synchronous.
   */
  readonly busyTimeoutMs?: number;
  /** What decides while the file cannot: 'fallback' (default), 'open' or 'closed'. */
  readonly onFailure?: FailurePolicy;
  /** The least time between tries of a failed file, in ms (default 200; an integer from 0 to 60,000). */
  readonly probeIntervalMs?: number;
  /** The in-process store the 'fallback' policy decides on (default: a new MemoryStore). */
  readonly fallbackStore?: Store<'sync'>;
  /**
   * Each process's fallback enforces the limit divided by this: 'peers' (default) is the number of
   * processes last seen on the file (./file/peers.ts), so the host's fallbacks admit about one limit in all;
   * a number (an integer from 1 to 1,000,000) fixes it, and 1 gives every process the whole limit.
   */
  readonly fallbackDivisor?: number | 'peers';
  /** The most keys the file keeps per policy name (default 100,000, as the memory store per limiter). */
  readonly maxKeys?: number;
  /**
   * How long a concurrency lease lives without renewal, in ms (default 30,000; an integer from 100 to
   * 86,400,000). The process holding it renews it every leaseTtlMs / 3; a crashed process's leases
   * expire leaseTtlMs after their last renewal at most.
   */
  readonly leaseTtlMs?: number;
  /**
   * Warn once per process for each cause (a 'RatekeeperWarning' on process warnings, naming the cause:
   * a path it cannot open or write, a lock held beyond busyTimeoutMs, a corrupt file, a failing disk)
   * when the file could not decide and `onFailure` did (default true). No warning either while a
   * 'failure' listener is attached: a store whose failures are listened to is not silent.
   */
  readonly failureWarning?: boolean;
}

export interface ResolvedOptions {
  readonly path: string;
  readonly driver: Driver;
  readonly busyTimeoutMs: number;
  readonly onFailure: FailurePolicy;
  readonly probeIntervalMs: number;
  readonly fallbackStore: FallbackStore;
  readonly fallbackDivisor: number | 'peers';
  readonly maxKeys: number;
  readonly leaseTtlMs: number;
  readonly failureWarning: boolean;
}

export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;
export const DEFAULT_PROBE_INTERVAL_MS = 200;
/** The default `leaseTtlMs` (core's, shared by every store): a concurrency lease (ConcurrencyLimiter) of a process that stopped expires after 30 s. */
export { DEFAULT_CONCURRENCY_LEASE_TTL_MS };
const OWNER = 'SqliteStore';
const KNOWN: ReadonlySet<string> = new Set([
  'path',
  'driver',
  'busyTimeoutMs',
  'onFailure',
  'probeIntervalMs',
  'fallbackStore',
  'fallbackDivisor',
  'maxKeys',
  'leaseTtlMs',
  'failureWarning',
]);

function fail(option: string, want: string, value: unknown): never {
  const message = `${OWNER}: ${option} must be ${want}, got ${describeValue(value)}`;
  throw typeof value === 'number' ? new RangeError(message) : new TypeError(message);
}

function integer(option: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) fail(option, `an integer from ${min} to ${max}`, value);
  return value as number;
}

function oneOf<T extends string>(option: string, value: unknown, allowed: readonly T[]): T {
  if (!allowed.includes(value as T)) fail(option, `one of ${allowed.map((a) => `'${a}'`).join(', ')}`, value);
  return value as T;
}

function divisorOption(value: unknown): number | 'peers' {
  if (value === undefined || value === 'peers') return 'peers';
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 1_000_000) fail('fallbackDivisor', "'peers' or an integer from 1 to 1000000", value);
  return value as number;
}

function pathOption(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.includes('\0')) fail('path', 'the path of a database file (a non-empty string)', value);
  return value as string;
}

function fallbackOption(value: unknown): FallbackStore {
  const store = value as Partial<FallbackStore> | null;
  const ok = typeof store === 'object' && store !== null && store.mode === 'sync' && typeof store.bind === 'function' && typeof store.consumeAll === 'function';
  if (!ok) fail('fallbackStore', 'a synchronous store with consumeAll (such as a MemoryStore)', value);
  return store as FallbackStore;
}

/** resolveOptions validates `options`, fills in the defaults and loads the driver. */
export function resolveOptions(options: SqliteStoreOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) fail('options', 'an object with a path', options);
  refuseUnknown(OWNER, options, KNOWN);
  const o = options as Partial<Record<keyof SqliteStoreOptions, unknown>>;
  const resolved = {
    path: pathOption(o.path),
    busyTimeoutMs: o.busyTimeoutMs === undefined ? DEFAULT_BUSY_TIMEOUT_MS : integer('busyTimeoutMs', o.busyTimeoutMs, 0, 60_000),
    onFailure: o.onFailure === undefined ? 'fallback' : oneOf('onFailure', o.onFailure, ['fallback', 'open', 'closed'] as const),
    probeIntervalMs: o.probeIntervalMs === undefined ? DEFAULT_PROBE_INTERVAL_MS : integer('probeIntervalMs', o.probeIntervalMs, 0, 60_000),
    fallbackStore: o.fallbackStore === undefined ? new MemoryStore() : fallbackOption(o.fallbackStore),
    fallbackDivisor: divisorOption(o.fallbackDivisor),
    maxKeys: o.maxKeys === undefined ? DEFAULT_MAX_KEYS : integer('maxKeys', o.maxKeys, 1, 1_000_000_000),
    leaseTtlMs: o.leaseTtlMs === undefined ? DEFAULT_CONCURRENCY_LEASE_TTL_MS : integer('leaseTtlMs', o.leaseTtlMs, 100, 86_400_000),
    failureWarning: failureWarningOption(OWNER, o.failureWarning),
  };
  const choice = o.driver === undefined ? 'auto' : oneOf('driver', o.driver, DRIVERS);
  return { ...resolved, driver: loadDriver(OWNER, choice) };
}
