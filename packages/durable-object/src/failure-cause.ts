/**
 * Why a key's object could not decide, as the 'failure' listeners and the one-time warning (core's
 * failureWarner, once per isolate per cause) name it: 'timeout' (no answer within `timeoutMs`; past its
 * deadline the call changes nothing), 'overloaded' (the runtime refused the call: the object's queue is
 * full, nothing ran), 'connection' (the runtime failed the call otherwise: a lost connection, an object
 * reset by a deploy), 'reply' (the object threw, or answered what this store cannot read). No error text
 * is quoted: an object's error may carry what it was deciding.
 */
import { Failure, type FailureCause, type FailureInfo as RowFailureInfo } from '@ratekeeper/core/store';

export type FailureReason = 'timeout' | 'overloaded' | 'connection' | 'reply';

/** FailureInfo is what DurableObjectStore's 'failure' listeners receive. */
export type FailureInfo = Omit<RowFailureInfo, 'operation' | 'reason'> & {
  readonly operation: Exclude<RowFailureInfo['operation'], 'lease' | 'renew'>;
  readonly reason: FailureReason;
};

const CAUSES: Readonly<Record<FailureReason, string>> = {
  timeout: "the key's object answered nothing for TIMEOUT ms (timeoutMs)",
  overloaded: "the runtime refused the call: the key's object is overloaded (one key busier than one object serves)",
  connection: 'the runtime failed the call (a lost connection, an object reset by a deploy, an internal error)',
  reply: "the object threw, or answered what this store cannot read: is the namespace bound to your Worker's RateLimiterObject, of the same version as this store?",
};

/** overloaded tells the runtime's error for an object whose queue is full ('overloaded' travels as 'connection' through the kit). */
export const overloaded = (error: unknown): boolean => (error as { overloaded?: unknown } | null)?.overloaded === true;

/** failureOf classifies a rejected RPC by the flags workerd sets on its errors. */
export function failureOf(error: unknown): Failure {
  return new Failure((error as { remote?: unknown } | null)?.remote === true && !overloaded(error) ? 'reply' : 'connection', error);
}

/** causeOf is the cause of `info` for a store whose calls wait `timeoutMs`. */
export function causeOf(info: FailureInfo, timeoutMs: number): FailureCause {
  return { code: `RATEKEEPER_DURABLE_OBJECT_${info.reason.toUpperCase()}`, text: CAUSES[info.reason].replace('TIMEOUT', String(timeoutMs)) };
}
