/**
 * PostgresStore's options, validated once at construction: a TypeError for a wrong type, a RangeError
 * for a number out of range, each naming the store, the option and the value, and a TypeError for a
 * name that is not an option, so a typo never runs on a default. Nothing is coerced; the caller's
 * object is never read again.
 */
import { describeValue, refuseUnknown } from '@ratekeeper/core/store';
import { DEFAULT_CONCURRENCY_LEASE_TTL_MS, FAILURE_OPTIONS, type FailureOptions, type ResolvedFailureOptions, leaseTtlOption, resolveFailureOptions } from '@ratekeeper/core/store';
import { type Db, isClient, toDb } from './wire/client.js';

export type TimeSource = 'server' | 'client';

export interface PostgresStoreOptions extends FailureOptions {
  /** A node-postgres `Pool` (`new pg.Pool(…)`) or a postgres.js `sql` (`postgres(…)`). */
  readonly client: unknown;
  /**
   * The table holding the limits (default 'ratekeeper'; a lower-case identifier, optionally
   * schema-qualified: 'limits.ratekeeper'). A second table `${table}_peers` counts the processes.
   */
  readonly table?: string;
  /** Create the tables on first use when missing (default true); false for teams that run their own migrations (postgresSchema()). */
  readonly createTable?: boolean;
  /** Create the tables UNLOGGED (default false): faster writes, emptied after a crash, not replicated (README). */
  readonly unlogged?: boolean;
  /** 'server' (default): the database's clock_timestamp() decides; 'client': the limiter's clock (deterministic tests). */
  readonly time?: TimeSource;
  /**
   * How long a concurrency lease (ConcurrencyLimiter) lives without renewal, in ms (default 30,000; an
   * integer from 100 to 86,400,000). The process holding it renews it every leaseTtlMs / 3; a crashed
   * process's leases expire leaseTtlMs after their last renewal at most, on the store's clock.
   */
  readonly leaseTtlMs?: number;
}

export interface ResolvedOptions extends ResolvedFailureOptions {
  readonly db: Db;
  readonly table: string;
  readonly createTable: boolean;
  readonly unlogged: boolean;
  readonly time: TimeSource;
  readonly leaseTtlMs: number;
}

/** The default `leaseTtlMs` (core's, shared by every store): a concurrency lease of a process that stopped expires after 30 s. */
export { DEFAULT_CONCURRENCY_LEASE_TTL_MS };

export const DEFAULT_TABLE = 'ratekeeper';
const OWNER = 'PostgresStore';
const KNOWN: ReadonlySet<string> = new Set(['client', 'table', 'createTable', 'unlogged', 'time', 'leaseTtlMs', ...FAILURE_OPTIONS]);
const IDENTIFIER = /^(?:[a-z_][a-z0-9_]{0,62}\.)?[a-z_][a-z0-9_]{0,50}$/;

function fail(option: string, want: string, value: unknown): never {
  const message = `${OWNER}: ${option} must be ${want}, got ${describeValue(value)}`;
  throw typeof value === 'number' ? new RangeError(message) : new TypeError(message);
}

function boolean(option: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') fail(option, 'a boolean', value);
  return value as boolean;
}

/** tableName checks a table name: a lower-case identifier, optionally schema-qualified (it is written into SQL as is). */
export function tableName(owner: string, value: unknown): string {
  if (typeof value !== 'string' || !IDENTIFIER.test(value)) {
    const message = `${owner}: table must be a lower-case SQL identifier (letters, digits, _), optionally schema-qualified, got ${describeValue(value)}`;
    throw new TypeError(message);
  }
  return value as string;
}

/** resolveOptions validates `options` and fills in the defaults. */
export function resolveOptions(options: PostgresStoreOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) fail('options', 'an object with a client', options);
  refuseUnknown(OWNER, options, KNOWN);
  const o = options as unknown as Readonly<Record<string, unknown>>;
  if (!isClient(o['client'])) fail('client', 'a pg Pool or a postgres.js sql', o['client']);
  const time = o['time'] === undefined ? 'server' : o['time'];
  if (time !== 'server' && time !== 'client') fail('time', "one of 'server', 'client'", time);
  return {
    ...resolveFailureOptions(OWNER, o),
    db: toDb(o['client']),
    table: o['table'] === undefined ? DEFAULT_TABLE : tableName(OWNER, o['table']),
    createTable: boolean('createTable', o['createTable'], true),
    unlogged: boolean('unlogged', o['unlogged'], false),
    time: time as TimeSource,
    leaseTtlMs: leaseTtlOption(OWNER, o['leaseTtlMs']),
  };
}
