/**
 * Runner: how the kit's bindings reach their store. A binding turns a limiter's call into an op
 * (./ops.ts) and hands it to the runner with what to do with the answer; the runner gets the op
 * applied atomically on the store's rows and calls `then` once, with the answer or with the Failure
 * that kept the store from answering. On a synchronous store (SQLite) that happens before `run`
 * returns, and `run` returns `then`'s result; on an asynchronous one (a database server, a Durable
 * Object) `run` returns a promise of it that never rejects.
 *
 * The kit has a runner for each kind of primitive a store can supply: SyncRunner (./sync-runner.ts)
 * over a synchronous transaction, BatchRunner (./batcher.ts) over an asynchronous one, batching the
 * calls in flight together and bounding each through core's Remote. A store whose ops travel to where
 * its rows are (a Durable Object) supplies a runner of its own.
 */
import type { Mode, Result } from '../contract.js';
import type { Failure } from '../remote/failure.js';
import type { Answer, RowOp } from './ops.js';

export interface Runner<M extends Mode> {
  readonly mode: M;
  /** run applies `op` and calls `then` once with its answer or a Failure; the result is `then`'s. */
  run<T>(op: RowOp, then: (answer: Answer | Failure) => T): Result<M, T>;
  /** onRecover runs `callback` each time the store answers again after a failure (owed work is sent again then). */
  onRecover(callback: () => void): void;
}
