/**
 * The failure options every remote store takes, with the same names, defaults and messages on every
 * store (RedisStore, PostgresStore, …): validated once at construction, a TypeError for a wrong type and
 * a RangeError for a number out of range, each naming the store, the option and the value. Nothing is
 * coerced; the caller's object is never read again.
 */
import { MemoryStore } from '../../memory/memory-store.js';
import type { Store } from '../contract.js';
import { describeValue } from '../../validate.js';
import type { FailurePolicy } from './decisions.js';

export interface FailureOptions {
  /**
   * How long the server may answer nothing at all, while calls wait, before it counts as stopped, in
   * ms (default 1,000; an integer from 1 to 60,000). A server answering a queue, however slowly, is
   * waited for; when it stops, each waiting call is decided by `onFailure` about timeoutMs after its
   * last answer, and new calls at once. A short timeout (say 50) answers sooner during an outage, at a
   * price: a server starved of CPU for that long is taken for stopped, and a burst on a busy machine can
   * then be admitted by every process's fallback.
   */
  readonly timeoutMs?: number;
  /** What decides while the server cannot: 'fallback' (default: an in-process limiter), 'open' (admit) or 'closed' (deny, 503). */
  readonly onFailure?: FailurePolicy;
  /** The least time between probes of a failed server, in ms (default 200; an integer from 0 to 60,000). */
  readonly probeIntervalMs?: number;
  /** The in-process store the 'fallback' policy decides on (default: a new MemoryStore). */
  readonly fallbackStore?: Store<'sync'>;
  /**
   * Each process's fallback enforces the limit divided by this: 'peers' (default) is the number of
   * processes last seen deciding on this store (each counts its peers through the server while it is
   * up), so a fleet's fallback admits about one limit in all; a number (an integer from 1 to 1,000,000)
   * fixes it, and 1 gives every process the whole limit.
   */
  readonly fallbackDivisor?: number | 'peers';
  /**
   * Warn once per process for each cause (a 'RatekeeperWarning' on process warnings, naming the cause:
   * never connected, refused, timed out, an error reply) when the server could not decide and
   * `onFailure` did (default true). No warning either while a 'failure' listener is attached: a store
   * whose failures are listened to is not silent.
   */
  readonly failureWarning?: boolean;
}

/** FallbackStore is a synchronous store that can also decide composites. */
export type FallbackStore = Store<'sync'> & Required<Pick<Store<'sync'>, 'consumeAll'>>;

export interface ResolvedFailureOptions {
  readonly timeoutMs: number;
  readonly onFailure: FailurePolicy;
  readonly probeIntervalMs: number;
  readonly fallbackStore: FallbackStore;
  readonly fallbackDivisor: number | 'peers';
  readonly failureWarning: boolean;
}

export const DEFAULT_TIMEOUT_MS = 1_000;
export const DEFAULT_PROBE_INTERVAL_MS = 200;
/** FAILURE_OPTIONS names the options above, for a store's unknown-option check. */
export const FAILURE_OPTIONS: readonly string[] = ['timeoutMs', 'onFailure', 'probeIntervalMs', 'fallbackStore', 'fallbackDivisor', 'failureWarning'];
const MAX_MS = 60_000;
const MAX_DIVISOR = 1_000_000;

/** optionFail throws `owner: option must be want, got value` (RangeError for a number, else TypeError). */
export function optionFail(owner: string, option: string, want: string, value: unknown): never {
  const message = `${owner}: ${option} must be ${want}, got ${describeValue(value)}`;
  throw typeof value === 'number' ? new RangeError(message) : new TypeError(message);
}

/** integerMs accepts an integer number of milliseconds from `min` to 60,000. */
export function integerMs(owner: string, option: string, value: unknown, min: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > MAX_MS) optionFail(owner, option, `an integer from ${min} to ${MAX_MS}`, value);
  return value as number;
}

/** failureWarningOption validates a store's `failureWarning` option (default true: ./failure-warning.ts). */
export function failureWarningOption(owner: string, value: unknown): boolean {
  if (value === undefined) return true;
  if (typeof value !== 'boolean') optionFail(owner, 'failureWarning', 'a boolean', value);
  return value as boolean;
}

/** resolveFailureOptions validates the failure options of `o` for `owner` and fills in the defaults. */
export function resolveFailureOptions(owner: string, o: Readonly<Record<string, unknown>>): ResolvedFailureOptions {
  return {
    timeoutMs: o['timeoutMs'] === undefined ? DEFAULT_TIMEOUT_MS : integerMs(owner, 'timeoutMs', o['timeoutMs'], 1),
    onFailure: o['onFailure'] === undefined ? 'fallback' : policy(owner, o['onFailure']),
    probeIntervalMs: o['probeIntervalMs'] === undefined ? DEFAULT_PROBE_INTERVAL_MS : integerMs(owner, 'probeIntervalMs', o['probeIntervalMs'], 0),
    fallbackStore: o['fallbackStore'] === undefined ? new MemoryStore() : fallbackStore(owner, o['fallbackStore']),
    fallbackDivisor: o['fallbackDivisor'] === undefined ? 'peers' : divisor(owner, o['fallbackDivisor']),
    failureWarning: failureWarningOption(owner, o['failureWarning']),
  };
}

function policy(owner: string, value: unknown): FailurePolicy {
  if (value !== 'fallback' && value !== 'open' && value !== 'closed') optionFail(owner, 'onFailure', "one of 'fallback', 'open', 'closed'", value);
  return value as FailurePolicy;
}

function fallbackStore(owner: string, value: unknown): FallbackStore {
  const store = value as Partial<FallbackStore> | null;
  const ok = typeof store === 'object' && store !== null && store.mode === 'sync' && typeof store.bind === 'function' && typeof store.consumeAll === 'function';
  if (!ok) optionFail(owner, 'fallbackStore', 'a synchronous store with consumeAll (such as a MemoryStore)', value);
  return store as FallbackStore;
}

function divisor(owner: string, value: unknown): number | 'peers' {
  if (value === 'peers') return value;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_DIVISOR)
    optionFail(owner, 'fallbackDivisor', `'peers' or an integer from 1 to ${MAX_DIVISOR}`, value);
  return value as number;
}
