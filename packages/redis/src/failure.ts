/**
 * Failures: what went wrong when Redis did not decide. A Failure is a value, never a thrown error or a
 * rejected promise; the store turns it into a Decision by its failure policy and reports it once
 * through the 'failure' event as a FailureInfo. No error text ever reaches a Decision.
 *
 * Reasons:
 *   'timeout'      Redis answered nothing for `timeoutMs` while calls waited (a hung server, a lost
 *                  connection), or one call waited 100 × timeoutMs while others were answered. The
 *                  script was sent with a deadline the server's clock has passed, so it can no longer
 *                  change anything (see server-clock.ts).
 *   'connection'   the client gave up on the command (closed, refused, offline queue disabled …).
 *   'unavailable'  Redis failed recently and this call was not sent; one probe at a time checks it.
 *   'reply'        Redis answered with an error (OOM, WRONGTYPE, foreign data under a key …): the
 *                  server is up, so only this call is affected.
 */

export type FailureReason = 'timeout' | 'connection' | 'unavailable' | 'reply';

/** FailureInfo is the payload of RedisStore's 'failure' event. */
export interface FailureInfo {
  /**
   * The limiter call that failed; a composite reports 'consume' or 'peek'. 'lease' is a LeasedLimiter
   * taking units (its return of units reports 'refund'); reserve/wait report 'reserve' or 'cancel';
   * 'renew' is the renewal of a ConcurrencyLimiter's leases (concurrency-binding.ts).
   */
  readonly operation: 'consume' | 'peek' | 'allow' | 'reset' | 'refund' | 'lease' | 'reserve' | 'cancel' | 'renew';
  /** The policy's name; a composite's member names joined by '+'. */
  readonly policy: string;
  readonly reason: FailureReason;
  /** The client's error, when there was one (never for 'timeout' and 'unavailable'). */
  readonly error?: unknown;
}

export class Failure {
  readonly reason: FailureReason;
  readonly error: unknown;

  /** breaksConnection tells whether the failure says Redis is unreachable (and so trips the breaker). */
  readonly breaksConnection: boolean;

  constructor(reason: FailureReason, error?: unknown, breaksConnection = reason === 'timeout' || reason === 'connection') {
    this.reason = reason;
    this.error = error;
    this.breaksConnection = breaksConnection;
  }
}

/** TIMEOUT: Redis answered nothing for timeoutMs. */
export const TIMEOUT = new Failure('timeout');
/** OVERDUE: one call waited too long while Redis answered others (a stalled cluster node); no breaker. */
export const OVERDUE = new Failure('timeout', undefined, false);
export const UNAVAILABLE = new Failure('unavailable');

/** A Redis error reply starts with an upper-case code: ERR, OOM, WRONGTYPE, NOSCRIPT, BUSY … */
const REPLY_CODE = /^[A-Z]{2,}[A-Z_]*(?: |$)/;

/** failureOf classifies a client's rejection. */
export function failureOf(error: unknown): Failure {
  const message = error instanceof Error ? error.message : '';
  return new Failure(REPLY_CODE.test(message) ? 'reply' : 'connection', error);
}

/** isNoScript tells whether Redis lacks the script (after a restart, a failover or SCRIPT FLUSH). */
export function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}
