/**
 * DurableObjectStore's options, validated once at construction: a TypeError for a wrong type, a
 * RangeError for a number out of range, each naming the option and the value
 * (`DurableObjectStore: timeoutMs must be …, got …`), and a TypeError for a name that is not an
 * option, so a typo never silently runs on a default. Nothing is coerced; the caller's object is
 * never mutated.
 */
import { MemoryStore, type Store } from '@ratekeeper/core';
import { describeValue, failureWarningOption } from '@ratekeeper/core/store';
import type { Batch, Reply } from './protocol.js';

export type { FailurePolicy } from '@ratekeeper/core/store';
import type { FailurePolicy } from '@ratekeeper/core/store';
export type TimeSource = 'object' | 'client';

/** LimiterStub is what the store calls on an object: RateLimiterObject's `run`, by RPC. */
export interface LimiterStub {
  run(batch: Batch): Promise<Reply>;
}

/**
 * LimiterNamespace is the Durable Object namespace binding of RateLimiterObject (`env.LIMITS`): the
 * two methods the store calls, so any binding of the class fits.
 */
export interface LimiterNamespace {
  idFromName(name: string): unknown;
  get(id: never): LimiterStub;
}

export interface DurableObjectStoreOptions {
  /** The namespace binding of your RateLimiterObject class (`env.LIMITS`). */
  readonly namespace: LimiterNamespace;
  /** Prepended to every key to name its object (default 'rk:'); at most 64 characters. */
  readonly prefix?: string;
  /** 'object' (default): the object's clock decides; 'client': the limiter's clock (deterministic tests). */
  readonly time?: TimeSource;
  /** How long a call may go unanswered before the failure policy decides it, in ms (default 1,000; 1 to 60,000). */
  readonly timeoutMs?: number;
  /** What decides while an object cannot: 'fallback' (default, this isolate's memory), 'open' or 'closed'. */
  readonly onFailure?: FailurePolicy;
  /** The in-isolate store the 'fallback' policy decides on (default: a new MemoryStore). */
  readonly fallbackStore?: Store<'sync'>;
  /** Send the calls a request makes to one object in one turn as one RPC (default true). */
  readonly batch?: boolean;
  /** The most calls one RPC carries (default 64; an integer from 2 to 1,000). */
  readonly maxBatchSize?: number;
  /**
   * Warn once per isolate for each cause (a 'RatekeeperWarning' on process warnings, or console.warn
   * in a Worker without `process`, naming the cause: timed out, overloaded, the call failed, the object
   * threw) when an object could not decide and `onFailure` did (default true). No warning either while
   * a 'failure' listener is attached: a store whose failures are listened to is not silent.
   */
  readonly failureWarning?: boolean;
}

/** FallbackStore is a synchronous store that can also decide composites. */
export type FallbackStore = Store<'sync'> & Required<Pick<Store<'sync'>, 'consumeAll'>>;

export interface ResolvedOptions {
  readonly namespace: LimiterNamespace;
  readonly prefix: string;
  readonly time: TimeSource;
  readonly timeoutMs: number;
  readonly onFailure: FailurePolicy;
  readonly fallbackStore: FallbackStore;
  readonly batch: boolean;
  readonly maxBatchSize: number;
  readonly failureWarning: boolean;
}

export const DEFAULT_PREFIX = 'rk:';
export const DEFAULT_TIMEOUT_MS = 1_000;
export const DEFAULT_MAX_BATCH = 64;
const OWNER = 'DurableObjectStore';
const KNOWN: ReadonlySet<string> = new Set(['namespace', 'prefix', 'time', 'timeoutMs', 'onFailure', 'fallbackStore', 'batch', 'maxBatchSize', 'failureWarning']);

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

function namespaceOption(value: unknown): LimiterNamespace {
  const ns = value as Partial<LimiterNamespace> | null;
  const ok = typeof ns === 'object' && ns !== null && typeof ns.idFromName === 'function' && typeof ns.get === 'function';
  if (!ok) fail('namespace', 'a Durable Object namespace binding of RateLimiterObject (env.LIMITS: idFromName and get)', value);
  return ns as LimiterNamespace;
}

function fallbackOption(value: unknown): FallbackStore {
  const store = value as Partial<FallbackStore> | null;
  const ok = typeof store === 'object' && store !== null && store.mode === 'sync' && typeof store.bind === 'function' && typeof store.consumeAll === 'function';
  if (!ok) fail('fallbackStore', 'a synchronous store with consumeAll (such as a MemoryStore)', value);
  return store as FallbackStore;
}

/** resolveOptions validates `options` and fills in the defaults. */
export function resolveOptions(options: DurableObjectStoreOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) fail('options', 'an object with a namespace', options);
  const unknown = Object.keys(options).find((name) => !KNOWN.has(name));
  if (unknown !== undefined) throw new TypeError(`${OWNER}: unknown option ${describeValue(unknown)}`);
  const o = options as Partial<Record<keyof DurableObjectStoreOptions, unknown>>;
  const prefix = o.prefix ?? DEFAULT_PREFIX;
  if (typeof prefix !== 'string' || prefix.length > 64) fail('prefix', 'a string of at most 64 characters', prefix);
  const batch = o.batch ?? true;
  if (typeof batch !== 'boolean') fail('batch', 'a boolean', batch);
  return {
    namespace: namespaceOption(o.namespace),
    prefix: prefix as string,
    time: o.time === undefined ? 'object' : oneOf('time', o.time, ['object', 'client']),
    timeoutMs: o.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : integer('timeoutMs', o.timeoutMs, 1, 60_000),
    onFailure: o.onFailure === undefined ? 'fallback' : oneOf('onFailure', o.onFailure, ['fallback', 'open', 'closed']),
    fallbackStore: o.fallbackStore === undefined ? new MemoryStore() : fallbackOption(o.fallbackStore),
    batch: batch as boolean,
    maxBatchSize: o.maxBatchSize === undefined ? DEFAULT_MAX_BATCH : integer('maxBatchSize', o.maxBatchSize, 2, 1_000),
    failureWarning: failureWarningOption(OWNER, o.failureWarning),
  };
}
