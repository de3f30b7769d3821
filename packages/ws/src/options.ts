/**
 * The options of the per-message limits, validated once, at construction, for `messageLimit` (ws)
 * and `eventLimit` (socket.io) alike. See the README's "Policies" for what each one means.
 */
import type { RateLimiter } from '@ratekeeper/core';
import { optionError, optionalFunction, optionsOf, typeError, wholeNumber } from '@ratekeeper/core/adapter';

/** What a client is told, and what a `warning` function is given, when a message is refused. */
export interface LimitInfo {
  /** Whole seconds after which the same message would be admitted (rounded up, at least 1); absent when never. */
  readonly retryAfterSeconds?: number;
  /** Refusals on this connection so far, this one included. */
  readonly denials: number;
  /** The socket.io event refused (absent on ws). */
  readonly event?: string;
}

/** The action on a refused message: drop it, drop it and tell the client once per streak, or hold it (and stop reading) until it fits. */
export type LimitAction = 'drop' | 'warn' | 'delay';

export interface CommonLimitOptions {
  /** The budget messages spend: a core limiter on any store (per user across processes on a shared one). */
  readonly limiter: RateLimiter;
  /** A second budget per connection, decided with `limiter` all or nothing (a refusal by either costs neither). */
  readonly perConnection?: RateLimiter;
  /** What happens to a refused message (default 'drop'). */
  readonly action?: LimitAction;
  /** Close the connection (ws: code 1008) at its Nth refusal (default: never). */
  readonly closeAfter?: number;
  /** Give back the units of messages charged but not yet handed on when the connection closes (default true). */
  readonly refundOnClose?: boolean;
  /** The most messages one connection may have waiting (for a decision of a remote store, or delayed); past it a message is refused (default 1000). */
  readonly maxQueued?: number;
}

const COMMON = ['limiter', 'perConnection', 'action', 'closeAfter', 'refundOnClose', 'maxQueued'] as const;

/** Settings: the validated options a Meter runs on. */
export interface Settings {
  readonly limiter: RateLimiter;
  readonly perConnection: RateLimiter | undefined;
  readonly action: LimitAction;
  readonly closeAfter: number;
  readonly refundOnClose: boolean;
  readonly maxQueued: number;
  /** Every limiter answers synchronously (the memory store): messages are decided as they arrive. */
  readonly sync: boolean;
}

/** settings validates the common options of `owner`, with `extra` the option names it adds. */
export function settings<O extends CommonLimitOptions>(owner: string, options: O, extra: readonly string[]): { readonly settings: Settings; readonly options: Partial<O> } {
  const o = optionsOf(owner, options, [...COMMON, ...extra]) as Partial<O>;
  const limiter = checkLimiter(owner, 'limiter', o.limiter);
  const perConnection = o.perConnection === undefined ? undefined : checkLimiter(owner, 'perConnection', o.perConnection);
  const action = o.action ?? 'drop';
  if (action !== 'drop' && action !== 'warn' && action !== 'delay') typeError(owner, 'action', "'drop', 'warn' or 'delay'", action);
  const closeAfter = o.closeAfter === undefined || o.closeAfter === Number.POSITIVE_INFINITY ? Number.POSITIVE_INFINITY : wholeNumber(owner, 'closeAfter', o.closeAfter, 1);
  if (o.refundOnClose !== undefined && typeof o.refundOnClose !== 'boolean') optionError(owner, 'refundOnClose', 'a boolean', o.refundOnClose, 'boolean');
  const maxQueued = wholeNumber(owner, 'maxQueued', o.maxQueued ?? 1000, 1);
  const sync = limiter.mode === 'sync' && (perConnection === undefined || perConnection.mode === 'sync');
  // Refunds serve a composite's all-or-nothing, and the charges a closed connection leaves in flight (remote stores only).
  const refunds = perConnection !== undefined || (!sync && o.refundOnClose !== false);
  for (const [name, l] of [
    ['limiter', limiter],
    ['perConnection', perConnection],
  ] as const) {
    if (l !== undefined && refunds && (typeof l.refund !== 'function' || l.refundable === false)) {
      throw new TypeError(
        `${owner}: ${name} must refund (its store and algorithm support refund), for perConnection, and on a remote store for refundOnClose (or set refundOnClose: false)`,
      );
    }
  }
  return { settings: { limiter, perConnection, action, closeAfter, refundOnClose: o.refundOnClose ?? true, maxQueued, sync }, options: o };
}

function checkLimiter(owner: string, option: string, value: unknown): RateLimiter {
  const l = value as RateLimiter;
  if (typeof l !== 'object' || l === null || typeof l.allow !== 'function' || typeof l.peek !== 'function')
    typeError(owner, option, 'a RateLimiter (from @ratekeeper/core)', value);
  return l;
}

export { optionalFunction };
