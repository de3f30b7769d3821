/**
 * DurableObjectStore's options, validated once at construction: a TypeError for a wrong type or an
 * unknown name, a RangeError for a number out of range, each naming the option and the value. The
 * failure options are core's, with every store's messages and defaults. Nothing is coerced or mutated.
 */
import type { Store } from '@ratekeeper/core';
import { type FailurePolicy, optionFail, refuseUnknown, resolveFailureOptions } from '@ratekeeper/core/store';
import type { Batch, Reply } from './protocol.js';

export type { FailurePolicy } from '@ratekeeper/core/store';
export { DEFAULT_TIMEOUT_MS } from '@ratekeeper/core/store';
export type TimeSource = 'object' | 'client';

/** LimiterStub is what the store calls on an object: RateLimiterObject's `run`, by RPC. */
export type LimiterStub = { run(batch: Batch): Promise<Reply> };
/** LimiterNamespace is the Durable Object namespace binding of RateLimiterObject (`env.LIMITS`): the two methods the store calls. */
export type LimiterNamespace = { idFromName(name: string): unknown; get(id: never): LimiterStub };

export interface DurableObjectStoreOptions {
  /** The namespace binding of your RateLimiterObject class (`env.LIMITS`). */
  readonly namespace: LimiterNamespace;
  /** Prepended to every key's object name (default 'rk:'); at most 64 characters. */
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
  /** Warn once per isolate per cause when an object could not decide (default true); never while a 'failure' listener is attached. */
  readonly failureWarning?: boolean;
}

export const DEFAULT_PREFIX = 'rk:';
export const DEFAULT_MAX_BATCH = 64;
const OWNER = 'DurableObjectStore';
const KNOWN: ReadonlySet<string> = new Set(['namespace', 'prefix', 'time', 'timeoutMs', 'onFailure', 'fallbackStore', 'batch', 'maxBatchSize', 'failureWarning']);

/** resolveOptions validates `options` and fills in the defaults. */
export function resolveOptions(options: DurableObjectStoreOptions) {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) optionFail(OWNER, 'options', 'an object with a namespace', options);
  refuseUnknown(OWNER, options, KNOWN);
  const o = options as unknown as Readonly<Record<string, unknown>>;
  const ns = o['namespace'] as Partial<LimiterNamespace> | undefined;
  if (typeof ns?.idFromName !== 'function' || typeof ns.get !== 'function')
    optionFail(OWNER, 'namespace', 'a Durable Object namespace binding of RateLimiterObject (env.LIMITS)', ns);
  const { prefix = DEFAULT_PREFIX, time = 'object', batch = true, maxBatchSize = DEFAULT_MAX_BATCH } = o;
  if (typeof prefix !== 'string' || prefix.length > 64) optionFail(OWNER, 'prefix', 'a string of at most 64 characters', prefix);
  if (time !== 'object' && time !== 'client') optionFail(OWNER, 'time', "one of 'object', 'client'", time);
  if (typeof batch !== 'boolean') optionFail(OWNER, 'batch', 'a boolean', batch);
  if (!Number.isInteger(maxBatchSize) || (maxBatchSize as number) < 2 || (maxBatchSize as number) > 1_000)
    optionFail(OWNER, 'maxBatchSize', 'an integer from 2 to 1000', maxBatchSize);
  const { timeoutMs, onFailure, fallbackStore, failureWarning } = resolveFailureOptions(OWNER, o);
  return { namespace: ns as LimiterNamespace, prefix, time: time as TimeSource, timeoutMs, onFailure, fallbackStore, batch, maxBatchSize: maxBatchSize as number, failureWarning };
}
