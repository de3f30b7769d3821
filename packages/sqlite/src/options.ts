/**
 * SqliteStore's options, validated once at construction (a TypeError for a wrong type or an unknown
 * name, a RangeError for a number out of range, naming the store, the option and the value; nothing
 * coerced, the caller's object never mutated). The failure options are core's, without `timeoutMs`;
 * the driver is loaded here, so one the runtime lacks is refused now (./driver.ts).
 */
import { DEFAULT_MAX_KEYS } from '@ratekeeper/core';
import { FAILURE_OPTIONS, type FailureOptions, leaseTtlOption, optionFail, refuseUnknown, resolveFailureOptions } from '@ratekeeper/core/store';
import { DRIVERS, type DriverChoice, loadDriver } from './driver.js';

export interface SqliteStoreOptions extends Omit<FailureOptions, 'timeoutMs'> {
  /** The database file every process on the host opens (created with its tables if missing). */
  readonly path: string;
  /** 'auto' (default): bun:sqlite on Bun, else better-sqlite3, else node:sqlite; or one of them by name. */
  readonly driver?: DriverChoice;
  /**
   * How long the file may go with no commit, while a decision waits for the lock, before it counts as
   * failing, in ms (default 5,000; 0 to 60,000): a queue of deciders is waited for, a stopped holder is
   * not (5 s: a machine short of CPU can leave a holder unscheduled for over a second).
   */
  readonly busyTimeoutMs?: number;
  /** The most rows the file keeps per policy name (default 100,000, as the memory store per limiter). */
  readonly maxKeys?: number;
  /** How long a concurrency lease lives without renewal, in ms (default 30,000; an integer from 100 to 86,400,000). */
  readonly leaseTtlMs?: number;
}

export type ResolvedOptions = ReturnType<typeof resolveOptions>;

export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;
const OWNER = 'SqliteStore';
const KNOWN: ReadonlySet<string> = new Set(['path', 'driver', 'busyTimeoutMs', 'maxKeys', 'leaseTtlMs', ...FAILURE_OPTIONS.filter((name) => name !== 'timeoutMs')]);

function integer(option: string, value: unknown, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const min = option === 'maxKeys' ? 1 : 0;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) optionFail(OWNER, option, `an integer from ${min} to ${max}`, value);
  return value as number;
}

/** resolveOptions validates `options`, fills in the defaults and loads the driver. */
export function resolveOptions(options: SqliteStoreOptions) {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) optionFail(OWNER, 'options', 'an object with a path', options);
  refuseUnknown(OWNER, options, KNOWN);
  const o = options as unknown as Readonly<Record<string, unknown>>;
  const path = o['path'];
  if (typeof path !== 'string' || path.length === 0 || path.includes('\0')) optionFail(OWNER, 'path', 'the path of a database file (a non-empty string)', path);
  const driver = o['driver'] ?? 'auto';
  if (!DRIVERS.includes(driver as DriverChoice)) optionFail(OWNER, 'driver', `one of ${DRIVERS.map((d) => `'${d}'`).join(', ')}`, driver);
  const { timeoutMs: _, ...failure } = resolveFailureOptions(OWNER, o);
  return {
    ...failure,
    path: path as string,
    busyTimeoutMs: integer('busyTimeoutMs', o['busyTimeoutMs'], DEFAULT_BUSY_TIMEOUT_MS, 60_000),
    maxKeys: integer('maxKeys', o['maxKeys'], DEFAULT_MAX_KEYS, 1_000_000_000),
    leaseTtlMs: leaseTtlOption(OWNER, o['leaseTtlMs']),
    driver: loadDriver(OWNER, driver as DriverChoice),
  };
}
