/**
 * Failures: what happened when an object did not decide. A Failure is a value, never a thrown error
 * or a rejected promise; the store turns it into a Decision by its failure policy and reports it once
 * through its 'failure' listeners as a FailureInfo. No error text ever reaches a Decision.
 *
 * Reasons:
 *   'timeout'     no answer within `timeoutMs`. The call carried a deadline its object's clock had
 *                 reached by then (calls.ts), so if it arrives later it changes nothing.
 *   'overloaded'  the runtime refused the call: the object's queue is full (a key hotter than one
 *                 object serves); nothing was run.
 *   'connection'  the runtime failed the call otherwise (a lost connection, an object reset by a
 *                 deploy, an internal error).
 *   'reply'       the object answered something this store cannot read, or threw.
 *
 * The policies' decisions are core's remote store kit's (@ratekeeper/core/store), as RedisStore's:
 * 'open' admits without counting; 'closed' denies with a finite wait, CLOSED_RETRY_AFTER_MS (503 with
 * `Retry-After: 1`); 'fallback' decides on this isolate's memory with the same policy.
 */
import type { Decision, Policy } from '@ratekeeper/core';

export type FailureReason = 'timeout' | 'overloaded' | 'connection' | 'reply';

/** FailureInfo is what DurableObjectStore's 'failure' listeners receive. */
export interface FailureInfo {
  /** The limiter call that failed; a composite reports 'consume' or 'peek'. */
  readonly operation: 'consume' | 'peek' | 'allow' | 'reset' | 'refund' | 'reserve' | 'cancel';
  /** The policy's name; a composite's member names joined by '+'. */
  readonly policy: string;
  readonly reason: FailureReason;
  /** The runtime's error, when there was one (never for 'timeout'). */
  readonly error?: unknown;
}

export class Failure {
  readonly reason: FailureReason;
  readonly error: unknown;
  constructor(reason: FailureReason, error?: unknown) {
    this.reason = reason;
    this.error = error;
  }
}

export const TIMEOUT = new Failure('timeout');

/** failureOf classifies a rejected RPC by the flags workerd sets on its errors. */
export function failureOf(error: unknown): Failure {
  const flags = (typeof error === 'object' && error !== null ? error : {}) as { overloaded?: unknown; remote?: unknown };
  if (flags.overloaded === true) return new Failure('overloaded', error);
  return new Failure(flags.remote === true ? 'reply' : 'connection', error);
}

export function info(operation: FailureInfo['operation'], policy: string, failure: Failure): FailureInfo {
  return failure.error === undefined ? { operation, policy, reason: failure.reason } : { operation, policy, reason: failure.reason, error: failure.error };
}

export { CLOSED_RETRY_AFTER_MS, closedDecision, fallbackDecision, openDecision } from '@ratekeeper/core/store';

/** decisionsOf reads a decide answer (four numbers per member) for `policies`; undefined for any other shape. */
export function decisionsOf(answer: unknown, policies: readonly Policy[]): Decision[] | undefined {
  if (!Array.isArray(answer) || answer.length !== 4 * policies.length) return undefined;
  return policies.map((policy, i) => ({
    allowed: answer[4 * i] === 1,
    limit: policy.limit,
    remaining: answer[4 * i + 1] as number,
    retryAfterMs: answer[4 * i + 2] as number,
    resetAfterMs: answer[4 * i + 3] as number,
    policy,
  }));
}
