/**
 * RedisStore's options, validated once at construction: a TypeError for a wrong type, a RangeError for
 * a number out of range, each naming the option and the value (`RedisStore: timeoutMs must be …, got
 * …`), and a TypeError for a name that is not an option (`RedisStore: unknown option "onfailure"`), so
 * a typo never silently runs on a default. Nothing is coerced; the caller's object is never mutated.
 */
import { describeValue } from '@ratekeeper/core/store';
import { DEFAULT_CONCURRENCY_LEASE_TTL_MS, FAILURE_OPTIONS, type FailureOptions, type ResolvedFailureOptions, optionFail, resolveFailureOptions } from '@ratekeeper/core/store';
import { DEFAULT_MAX_BATCH } from './transport/batcher.js';
import { type RedisClientLike, type Send, adaptClient, isCluster } from './transport/client.js';

export type TimeSource = 'server' | 'client';

export interface RedisStoreOptions extends FailureOptions {
  /** An ioredis `Redis` or `Cluster`, or a node-redis client or cluster, already configured. */
  readonly client: RedisClientLike;
  /** Prepended to every key (default 'rk:'); at most 64 characters, no '{' or '}'. */
  readonly prefix?: string;
  /** 'server' (default): the script reads Redis's TIME; 'client': the limiter's clock decides. */
  readonly time?: TimeSource;
  /** Send decisions pending at the same moment on one node as one script call (default true). */
  readonly batch?: boolean;
  /** The most decisions one batch carries (default 64; an integer from 2 to 1,000). */
  readonly maxBatchSize?: number;
  /** Answer a key Redis denied locally until the wait it gave is over (default true). */
  readonly denyCache?: boolean;
  /**
   * How long a concurrency lease lives in Redis without renewal, in ms (default 30,000; an integer from
   * 3 × timeoutMs to 86,400,000). The process holding it renews it every leaseTtlMs / 3; a crashed
   * process's leases expire leaseTtlMs after their last renewal at most.
   */
  readonly leaseTtlMs?: number;
}

export interface ResolvedOptions extends ResolvedFailureOptions {
  readonly send: Send;
  readonly prefix: string;
  readonly time: TimeSource;
  readonly batch: boolean;
  readonly maxBatchSize: number;
  readonly denyCache: boolean;
  readonly cluster: boolean;
  readonly leaseTtlMs: number;
}

export const DEFAULT_PREFIX = 'rk:';
/** The default `leaseTtlMs` (core's, shared by every store): a concurrency lease (ConcurrencyLimiter) of a process that stopped expires after 30 s. */
export { DEFAULT_CONCURRENCY_LEASE_TTL_MS };
const MAX_LEASE_TTL_MS = 86_400_000;
const OWNER = 'RedisStore';
const KNOWN: ReadonlySet<string> = new Set(['client', 'prefix', 'time', ...FAILURE_OPTIONS, 'batch', 'maxBatchSize', 'denyCache', 'leaseTtlMs']);

function fail(option: string, want: string, value: unknown): never {
  return optionFail(OWNER, option, want, value);
}

function flag(option: string, value: unknown): boolean {
  if (typeof value !== 'boolean') fail(option, 'a boolean', value);
  return value as boolean;
}

function batchSize(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 2 || value > 1000) fail('maxBatchSize', 'an integer from 2 to 1000', value);
  return value as number;
}

function oneOf<T extends string>(option: string, value: unknown, allowed: readonly T[]): T {
  if (!allowed.includes(value as T)) fail(option, `one of ${allowed.map((a) => `'${a}'`).join(', ')}`, value);
  return value as T;
}

function prefixOption(value: unknown): string {
  if (typeof value !== 'string' || value.length > 64 || /[{}]/.test(value)) fail('prefix', 'a string of at most 64 characters without { or }', value);
  return value;
}

/** leaseTtl accepts a lease TTL long enough for a renewal (every TTL / 3) to outlast a call's timeout. */
function leaseTtl(value: unknown, timeoutMs: number): number {
  const min = 3 * timeoutMs;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > MAX_LEASE_TTL_MS) {
    fail('leaseTtlMs', `an integer from ${min} (3 × timeoutMs) to ${MAX_LEASE_TTL_MS}`, value);
  }
  return value as number;
}

/** resolveOptions validates `options` and fills in the defaults. */
export function resolveOptions(options: RedisStoreOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) fail('options', 'an object with a client', options);
  const unknown = Object.keys(options).find((name) => !KNOWN.has(name));
  if (unknown !== undefined) throw new TypeError(`${OWNER}: unknown option ${describeValue(unknown)}`);
  const o = options as Partial<Record<keyof RedisStoreOptions, unknown>>;
  const send = adaptClient(OWNER, o.client);
  const failure = resolveFailureOptions(OWNER, o);
  const { timeoutMs } = failure;
  return {
    ...failure,
    send,
    prefix: o.prefix === undefined ? DEFAULT_PREFIX : prefixOption(o.prefix),
    time: o.time === undefined ? 'server' : oneOf('time', o.time, ['server', 'client']),
    batch: o.batch === undefined ? true : flag('batch', o.batch),
    maxBatchSize: o.maxBatchSize === undefined ? DEFAULT_MAX_BATCH : batchSize(o.maxBatchSize),
    denyCache: o.denyCache === undefined ? true : flag('denyCache', o.denyCache),
    cluster: isCluster(o.client),
    leaseTtlMs: o.leaseTtlMs === undefined ? Math.max(DEFAULT_CONCURRENCY_LEASE_TTL_MS, 3 * timeoutMs) : leaseTtl(o.leaseTtlMs, timeoutMs),
  };
}
