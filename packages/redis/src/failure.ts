/**
 * Failures: what went wrong when Redis did not decide. A Failure is a value, never a thrown error or a
 * rejected promise; the store turns it into a Decision by its failure policy and reports it once
 * through the 'failure' event as a FailureInfo. No error text ever reaches a Decision.
 *
 * Reasons:
 *   'timeout'      Redis did not answer within `timeoutMs` (a hung server, a lost connection, a full
 *                  client queue). The call may still run later: its count then lands late, which can
 *                  only ever deny more, never admit more.
 *   'connection'   the client gave up on the command (closed, refused, offline queue disabled …).
 *   'unavailable'  Redis failed recently and this call was not sent; one probe at a time checks it.
 *   'reply'        Redis answered with an error (OOM, WRONGTYPE, foreign data under a key …): the
 *                  server is up, so only this call is affected.
 */

export type FailureReason = 'timeout' | 'connection' | 'unavailable' | 'reply';

/** FailureInfo is the payload of RedisStore's 'failure' event. */
export interface FailureInfo {
  /** The limiter call that failed; a composite reports 'consume' or 'peek'. */
  readonly operation: 'consume' | 'peek' | 'allow' | 'reset';
  /** The policy's name; a composite's member names joined by '+'. */
  readonly policy: string;
  readonly reason: FailureReason;
  /** The client's error, when there was one (never for 'timeout' and 'unavailable'). */
  readonly error?: unknown;
}

export class Failure {
  readonly reason: FailureReason;
  readonly error: unknown;

  constructor(reason: FailureReason, error?: unknown) {
    this.reason = reason;
    this.error = error;
  }

  /** breaksConnection tells whether the failure says Redis is unreachable (and so trips the breaker). */
  get breaksConnection(): boolean {
    return this.reason === 'timeout' || this.reason === 'connection';
  }
}

export const TIMEOUT = new Failure('timeout');
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
