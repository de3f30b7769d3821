/**
 * RedisStore's options, validated once at construction: a TypeError for a wrong type, a RangeError for
 * a number out of range, each naming the option and the value (`RedisStore: timeoutMs must be …, got
 * …`), and a TypeError for a name that is not an option (`RedisStore: unknown option "onfailure"`), so
 * a typo never silently runs on a default. Nothing is coerced; the caller's object is never mutated.
 */
import { MemoryStore, type Store, describeValue } from '@ratekeeper/core';
import { DEFAULT_MAX_BATCH } from './batcher.js';
import { type RedisClientLike, type Send, adaptClient, isCluster } from './client.js';

export type FailurePolicy = 'fallback' | 'open' | 'closed';
export type TimeSource = 'server' | 'client';

export interface RedisStoreOptions {
  /** An ioredis `Redis` or `Cluster`, or a node-redis client or cluster, already configured. */
  readonly client: RedisClientLike;
  /** Prepended to every key (default 'rk:'); at most 64 characters, no '{' or '}'. */
  readonly prefix?: string;
  /** 'server' (default): the script reads Redis's TIME; 'client': the limiter's clock decides. */
  readonly time?: TimeSource;
  /** The longest any call may wait for Redis, in ms (default 50; an integer from 1 to 60,000). */
  readonly timeoutMs?: number;
  /** What decides while Redis cannot: 'fallback' (default), 'open' or 'closed'. */
  readonly onFailure?: FailurePolicy;
  /** The least time between probes of a failed Redis, in ms (default 200; an integer from 0 to 60,000). */
  readonly probeIntervalMs?: number;
  /** The in-process store the 'fallback' policy decides on (default: a new MemoryStore). */
  readonly fallbackStore?: Store<'sync'>;
  /** Send decisions pending at the same moment on one node as one script call (default true). */
  readonly batch?: boolean;
  /** The most decisions one batch carries (default 64; an integer from 2 to 1,000). */
  readonly maxBatchSize?: number;
  /** Answer a key Redis denied locally until the wait it gave is over (default true). */
  readonly denyCache?: boolean;
  /**
   * Each process's fallback enforces the limit divided by this (default 1: the whole limit); set it to
   * the number of processes sharing the limit. An integer from 1 to 1,000,000.
   */
  readonly fallbackDivisor?: number;
  /**
   * How long a concurrency lease lives in Redis without renewal, in ms (default 30,000; an integer from
   * 3 × timeoutMs to 86,400,000). The process holding it renews it every leaseTtlMs / 3; a crashed
   * process's leases expire leaseTtlMs after their last renewal at most.
   */
  readonly leaseTtlMs?: number;
}

export interface ResolvedOptions {
  readonly send: Send;
  readonly prefix: string;
  readonly time: TimeSource;
  readonly timeoutMs: number;
  readonly onFailure: FailurePolicy;
  readonly probeIntervalMs: number;
  readonly fallbackStore: FallbackStore;
  readonly batch: boolean;
  readonly maxBatchSize: number;
  readonly denyCache: boolean;
  readonly cluster: boolean;
  readonly fallbackDivisor: number;
  readonly leaseTtlMs: number;
}

/** FallbackStore is a synchronous store that can also decide composites. */
export type FallbackStore = Store<'sync'> & Required<Pick<Store<'sync'>, 'consumeAll'>>;

export const DEFAULT_PREFIX = 'rk:';
export const DEFAULT_TIMEOUT_MS = 50;
export const DEFAULT_PROBE_INTERVAL_MS = 200;
export const DEFAULT_LEASE_TTL_MS = 30_000;
const MAX_LEASE_TTL_MS = 86_400_000;
const OWNER = 'RedisStore';
const MAX_MS = 60_000;
const MAX_DIVISOR = 1_000_000;
const KNOWN: ReadonlySet<string> = new Set([
  'client',
  'prefix',
  'time',
  'timeoutMs',
  'onFailure',
  'probeIntervalMs',
  'fallbackStore',
  'fallbackDivisor',
  'batch',
  'maxBatchSize',
  'denyCache',
  'leaseTtlMs',
]);

function fail(option: string, want: string, value: unknown): never {
  const message = `${OWNER}: ${option} must be ${want}, got ${describeValue(value)}`;
  throw typeof value === 'number' ? new RangeError(message) : new TypeError(message);
}

function integerMs(option: string, value: unknown, min: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > MAX_MS) {
    fail(option, `an integer from ${min} to ${MAX_MS}`, value);
  }
  return value;
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

function fallbackOption(value: unknown): FallbackStore {
  const store = value as Partial<FallbackStore> | null;
  const ok = typeof store === 'object' && store !== null && store.mode === 'sync' && typeof store.bind === 'function' && typeof store.consumeAll === 'function';
  if (!ok) fail('fallbackStore', 'a synchronous store with consumeAll (such as a MemoryStore)', value);
  return store as FallbackStore;
}

function divisorOption(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_DIVISOR) fail('fallbackDivisor', `an integer from 1 to ${MAX_DIVISOR}`, value);
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
  const timeoutMs = o.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : integerMs('timeoutMs', o.timeoutMs, 1);
  return {
    send: adaptClient(OWNER, o.client),
    prefix: o.prefix === undefined ? DEFAULT_PREFIX : prefixOption(o.prefix),
    time: o.time === undefined ? 'server' : oneOf('time', o.time, ['server', 'client']),
    timeoutMs,
    onFailure: o.onFailure === undefined ? 'fallback' : oneOf('onFailure', o.onFailure, ['fallback', 'open', 'closed']),
    probeIntervalMs: o.probeIntervalMs === undefined ? DEFAULT_PROBE_INTERVAL_MS : integerMs('probeIntervalMs', o.probeIntervalMs, 0),
    fallbackStore: o.fallbackStore === undefined ? new MemoryStore() : fallbackOption(o.fallbackStore),
    batch: o.batch === undefined ? true : flag('batch', o.batch),
    maxBatchSize: o.maxBatchSize === undefined ? DEFAULT_MAX_BATCH : batchSize(o.maxBatchSize),
    denyCache: o.denyCache === undefined ? true : flag('denyCache', o.denyCache),
    cluster: isCluster(o.client),
    fallbackDivisor: o.fallbackDivisor === undefined ? 1 : divisorOption(o.fallbackDivisor),
    leaseTtlMs: o.leaseTtlMs === undefined ? Math.max(DEFAULT_LEASE_TTL_MS, 3 * timeoutMs) : leaseTtl(o.leaseTtlMs, timeoutMs),
  };
}
