/**
 * MySqlStore's options, validated once at construction: a TypeError for a wrong type, a RangeError for
 * a number out of range, each naming the option and the value (`MySqlStore: table must be …, got …`),
 * and a TypeError for a name that is not an option, so a typo never runs on a default. The failure
 * options are core's, with core's names, defaults and messages (@ratekeeper/core/store).
 */
import { FAILURE_OPTIONS, type FailureOptions, leaseTtlOption, optionFail, refuseUnknown, resolveFailureOptions } from '@ratekeeper/core/store';
import { type MySqlPool, asPool } from './client.js';

export type TimeSource = 'server' | 'client';

export interface MySqlStoreOptions extends FailureOptions {
  /** A mysql2 pool (promise or callback API), of any size, on the database that holds the table. */
  readonly client: unknown;
  /** The table (default 'ratekeeper': letters, digits, _, at most 48), beside `${table}_commits`, `${table}_peers` and a commit routine. */
  readonly table?: string;
  /** Create the tables and the routine on first use when missing (default true); false: run `mysqlSchema(table)` yourself. */
  readonly createTable?: boolean;
  /** 'server' (default): decide at the database's clock, so no server's clock skew bends a limit; 'client': at the limiter's. */
  readonly time?: TimeSource;
  /** How long a concurrency lease lives without renewal, in ms (default 30,000; an integer from 100 to 86,400,000). */
  readonly leaseTtlMs?: number;
}

export const DEFAULT_TABLE = 'ratekeeper';
const OWNER = 'MySqlStore';
const KNOWN: ReadonlySet<string> = new Set(['client', 'table', 'createTable', 'time', 'leaseTtlMs', ...FAILURE_OPTIONS]);
const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,47}$/;

/** resolveOptions validates `options` and fills in the defaults. */
export function resolveOptions(options: MySqlStoreOptions) {
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
