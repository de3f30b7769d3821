/**
 * Failures: what went wrong when a remote store's server did not decide. A Failure is a value, never
 * a thrown error or a rejected promise; the store turns it into a Decision by its failure policy and
 * reports it once through its 'failure' event as a FailureInfo. No error text ever reaches a Decision.
 *
 * Reasons:
 *   'timeout'      the server answered nothing for `timeoutMs` of listening while calls waited (a hung
 *                  server, a lost connection), or one call waited MAX_WAIT_FACTOR × timeoutMs while
 *                  others were answered. The request carried a deadline the server's clock has passed,
 *                  so it can no longer change anything (see ./server-clock.ts).
 *   'connection'   the client gave up on the request (closed, refused, offline queue disabled …).
 *   'unavailable'  the server failed recently and this call was not sent; one probe at a time checks it.
 *   'reply'        the server answered with an error (out of memory, foreign data under a key …): it is
 *                  up, so only this call is affected.
 */

export type FailureReason = 'timeout' | 'connection' | 'unavailable' | 'reply';

/** The codes Node and the database clients give a connection that could not be made at all. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'CONNECT_TIMEOUT']);

/**
 * unreachable tells an error that says the server could not be reached at all (refused, no such
 * host, no route, the connect timed out: Node's codes and postgres.js's CONNECT_TIMEOUT), as against
 * a connection that was made and then died. A store reruns a call whose connection died (a killed
 * backend, a reset) on a new one, but never one the server refused: that failure is the store's to
 * report at once, so the breaker opens and the failure policy decides within its bound.
 */
export function unreachable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && UNREACHABLE_CODES.has(code);
}

/** FailureInfo is the payload of a remote store's 'failure' event. */
export interface FailureInfo {
  /**
   * The limiter call that failed; a composite reports 'consume' or 'peek'. 'lease' is lease mode taking
   * units (its return of units reports 'refund'); reserve/wait report 'reserve' or 'cancel'; 'renew' is
   * the renewal of a ConcurrencyLimiter's leases.
   */
  readonly operation: 'consume' | 'peek' | 'allow' | 'reset' | 'refund' | 'lease' | 'reserve' | 'cancel' | 'renew' | 'charge' | 'usage' | 'block';
  /** The policy's name; a composite's member names joined by '+'. */
  readonly policy: string;
  readonly reason: FailureReason;
  /** The client's error, when there was one (never for 'timeout' and 'unavailable'). */
  readonly error?: unknown;
}

export class Failure {
  readonly reason: FailureReason;
  readonly error: unknown;

  /** breaksConnection tells whether the failure says the server is unreachable (and so trips the breaker). */
  readonly breaksConnection: boolean;

  constructor(reason: FailureReason, error?: unknown, breaksConnection = reason === 'timeout' || reason === 'connection') {
    this.reason = reason;
    this.error = error;
    this.breaksConnection = breaksConnection;
  }
}

/** TIMEOUT: the server answered nothing for timeoutMs. */
export const TIMEOUT = new Failure('timeout');
/** OVERDUE: one call waited too long while the server answered others, or before it ever answered; no breaker. */
export const OVERDUE = new Failure('timeout', undefined, false);
export const UNAVAILABLE = new Failure('unavailable');

/** failureInfo is the event payload for `failure` of `operation` on `policy`. */
export function failureInfo(operation: FailureInfo['operation'], policy: string, failure: Failure): FailureInfo {
  return failure.error === undefined ? { operation, policy, reason: failure.reason } : { operation, policy, reason: failure.reason, error: failure.error };
}
