/**
 * What a failed query means. A PostgreSQL error carries a SQLSTATE (five characters with a digit):
 * the server answered, only this statement failed ('reply'), except the classes that end the
 * connection (08: connection exception; 57P01-57P03: the backend terminated, the server shutting down
 * or starting). Anything else (ECONNREFUSED, "Connection terminated unexpectedly", postgres.js's
 * CONNECTION_CLOSED …) is the connection failing.
 */
import { Failure } from '@ratekeeper/core/store';

export type { FailureInfo, FailureReason } from '@ratekeeper/core/store';

const SQLSTATE = /^(?=.*[0-9])[0-9A-Z]{5}$/;

/** sqlState is the error's SQLSTATE, or undefined for a connection's error. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && SQLSTATE.test(code) ? code : undefined;
}

/**
 * working tells an error a working database sent: a SQLSTATE (a backend terminated by an
 * administrator, 57P01; a deadlock; a bad statement), but not one that a database unable to decide
 * anything, or a pooler in front of a stopped one, answers at every attempt: a refusal to serve
 * (57P03, starting up or shutting down; class 53, out of connections or resources), a crash (57P02),
 * or a connection exception (class 08, what a pooler sends when it cannot reach the server).
 */
export function working(error: unknown): boolean {
  const state = sqlState(error);
  return state !== undefined && state !== '57P02' && state !== '57P03' && !state.startsWith('53') && !state.startsWith('08');
}

/** AnswerError: the database answered something this store cannot read (a reply failure, not a connection's). */
export class AnswerError extends Error {}

/** breaksConnection tells an error that ended the connection (or came from no connection at all). */
export function breaksConnection(error: unknown): boolean {
  if (error instanceof AnswerError) return false;
  const state = sqlState(error);
  return state === undefined || state.startsWith('08') || /^57P0[1-3]$/.test(state);
}

/** retryable tells an error after which the transaction rolled back and may simply run again (a deadlock, a serialization failure). */
export function retryable(error: unknown): boolean {
  const state = sqlState(error);
  return state === '40P01' || state === '40001';
}

/** failureOf classifies a rejected send for core's Remote. */
export function failureOf(error: unknown): Failure {
  return new Failure(breaksConnection(error) ? 'connection' : 'reply', error);
}
