/**
 * MySqlStore's options, validated once at construction: a TypeError for a wrong type, a RangeError for
 * a number out of range, each naming the option and the value (`MySqlStore: table must be …, got …`),
 * and a TypeError for a name that is not an option, so a typo never runs on a default. The failure
 * options are core's, with core's names, defaults and messages (@ratekeeper/core/store).
 */
import { refuseUnknown } from '@ratekeeper/core/store';
import { FAILURE_OPTIONS, type FailureOptions, type ResolvedFailureOptions, leaseTtlOption, optionFail, resolveFailureOptions } from '@ratekeeper/core/store';
import { type MySqlPool, asPool } from './wire/client.js';

export type TimeSource = 'server' | 'client';

export interface MySqlStoreOptions extends FailureOptions {
  /** A mysql2 pool (promise or callback API) on the database that holds the table. */
  readonly client: unknown;
  /**
   * The table's name (default 'ratekeeper'); its companions are `${table}_commits`, `${table}_peers`
   * and the procedure `${table}_commit`. Letters, digits and underscores, at most 48 characters.
   */
  readonly table?: string;
  /** Create the tables and the procedure on first use when missing (default true); false: run the SQL of `mysqlSchema(table)` yourself. */
  readonly createTable?: boolean;
  /**
   * 'server' (default): every decision is taken at the database's clock (NOW(6)), so no application
   * server's clock skew bends a limit. 'client': at the limiter's clock (deterministic tests).
   */
  readonly time?: TimeSource;
  /**
   * How long a concurrency lease (ConcurrencyLimiter) lives without renewal, in ms (default 30,000; an
   * integer from 100 to 86,400,000). The process holding it renews it every leaseTtlMs / 3; a crashed
   * process's leases expire leaseTtlMs after their last renewal at most, on the store's clock.
   */
  readonly leaseTtlMs?: number;
}

export interface ResolvedOptions extends ResolvedFailureOptions {
  readonly pool: MySqlPool;
  readonly table: string;
  readonly createTable: boolean;
  readonly time: TimeSource;
  readonly leaseTtlMs: number;
}

export const DEFAULT_TABLE = 'ratekeeper';
const OWNER = 'MySqlStore';
const KNOWN: ReadonlySet<string> = new Set(['client', 'table', 'createTable', 'time', 'leaseTtlMs', ...FAILURE_OPTIONS]);
const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,47}$/;

/** resolveOptions validates `options` and fills in the defaults. */
export function resolveOptions(options: MySqlStoreOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) optionFail(OWNER, 'options', 'an object with a client', options);
  refuseUnknown(OWNER, options, KNOWN);
  const o = options as unknown as Readonly<Record<string, unknown>>;
  const pool = asPool(o['client']);
  if (pool === undefined) optionFail(OWNER, 'client', 'a mysql2 pool (with getConnection and query)', o['client']);
  const table = o['table'] ?? DEFAULT_TABLE;
  if (typeof table !== 'string' || !TABLE_NAME.test(table)) optionFail(OWNER, 'table', 'a name of letters, digits and underscores (at most 48, not starting with a digit)', table);
  const createTable = o['createTable'] ?? true;
  if (typeof createTable !== 'boolean') optionFail(OWNER, 'createTable', 'a boolean', createTable);
  const time = o['time'] ?? 'server';
  if (time !== 'server' && time !== 'client') optionFail(OWNER, 'time', "'server' or 'client'", time);
  return {
    ...resolveFailureOptions(OWNER, o),
    pool: pool as MySqlPool,
    table: table as string,
    createTable: createTable as boolean,
    time: time as TimeSource,
    leaseTtlMs: leaseTtlOption(OWNER, o['leaseTtlMs']),
  };
}
