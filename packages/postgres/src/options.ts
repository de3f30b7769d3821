/**
 * PostgresStore's options, validated once at construction: a TypeError for a wrong type, a RangeError
 * for a number out of range, each naming the store, the option and the value, and a TypeError for a
 * name that is not an option, so a typo never runs on a default. Nothing is coerced; the caller's
 * object is never read again.
 */
import {
  FAILURE_OPTIONS,
  type FailureOptions,
  type ResolvedFailureOptions,
  describeValue,
  leaseTtlOption,
  optionFail,
  refuseUnknown,
  resolveFailureOptions,
} from '@ratekeeper/core/store';
import { refusal } from './client.js';

export type TimeSource = 'server' | 'client';

export interface PostgresStoreOptions extends FailureOptions {
  /** A node-postgres `Pool` (`new pg.Pool(…)`) or a postgres.js `sql` (`postgres(…)`); a pool of any size. */
  readonly client: unknown;
  /**
   * The table holding the limits (default 'ratekeeper'; a lower-case identifier, optionally
   * schema-qualified: 'limits.ratekeeper'; quoted in every statement, so `user` or `order` work too).
   * A second table `${table}_peers` counts the processes.
   */
  readonly table?: string;
  /** Create the tables on first use when missing (default true); false for teams that run their own migrations (postgresSchema()). */
  readonly createTable?: boolean;
  /** Create the tables UNLOGGED (default false): faster writes, emptied after a crash, not replicated (README). */
  readonly unlogged?: boolean;
  /** 'server' (default): the database's clock_timestamp() decides; 'client': the limiter's clock (deterministic tests). */
  readonly time?: TimeSource;
  /** How long a concurrency lease lives without renewal, in ms (default 30,000; an integer from 100 to 86,400,000). */
  readonly leaseTtlMs?: number;
}

export interface ResolvedOptions extends ResolvedFailureOptions {
  readonly client: unknown;
  readonly table: string;
  readonly createTable: boolean;
  readonly unlogged: boolean;
  readonly time: TimeSource;
  readonly leaseTtlMs: number;
}

export const DEFAULT_TABLE = 'ratekeeper';
const OWNER = 'PostgresStore';
const KNOWN: ReadonlySet<string> = new Set(['client', 'table', 'createTable', 'unlogged', 'time', 'leaseTtlMs', ...FAILURE_OPTIONS]);
const IDENTIFIER = /^(?:[a-z_][a-z0-9_]{0,62}\.)?[a-z_][a-z0-9_]{0,50}$/;

function boolean(option: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') optionFail(OWNER, option, 'a boolean', value);
  return value as boolean;
}

/** tableName checks a table name: a lower-case identifier, optionally schema-qualified. */
export function tableName(owner: string, value: unknown): string {
  if (typeof value !== 'string' || !IDENTIFIER.test(value)) {
    throw new TypeError(`${owner}: table must be a lower-case SQL identifier (letters, digits, _), optionally schema-qualified, got ${describeValue(value)}`);
  }
  return value as string;
}

/** resolveOptions validates `options` and fills in the defaults. */
export function resolveOptions(options: PostgresStoreOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) optionFail(OWNER, 'options', 'an object with a client', options);
  refuseUnknown(OWNER, options, KNOWN);
  const o = options as unknown as Readonly<Record<string, unknown>>;
  const refused = refusal(o['client']);
  if (refused !== undefined) optionFail(OWNER, 'client', refused, o['client']);
  const time = o['time'] ?? 'server';
  if (time !== 'server' && time !== 'client') optionFail(OWNER, 'time', "one of 'server', 'client'", time);
  return {
    ...resolveFailureOptions(OWNER, o),
    client: o['client'],
    table: o['table'] === undefined ? DEFAULT_TABLE : tableName(OWNER, o['table']),
    createTable: boolean('createTable', o['createTable'], true),
    unlogged: boolean('unlogged', o['unlogged'], false),
    time: time as TimeSource,
    leaseTtlMs: leaseTtlOption(OWNER, o['leaseTtlMs']),
  };
}
