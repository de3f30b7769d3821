/**
 * SyncRunner: the runner of a synchronous row store (SQLite): each op is one transaction of its own,
 * run at once on the caller's clock (`now`), so a call answers before it returns, as on the memory
 * store. A read-only call (a peek) runs in a read snapshot; every other in a write transaction, a peek
 * behind a ban included (it drops a ban it finds ended, as the memory store does).
 */
import { Failure } from '../remote/failure.js';
import { applyOp } from './apply.js';
import { type Answer, type RowOp, byId, refsOf } from './ops.js';
import type { RowRef } from './row.js';
import type { Runner } from './runner.js';
import type { SyncTransactor } from './transactor.js';

export class SyncRunner implements Runner<'sync'> {
  readonly mode = 'sync';
  readonly #transactor: SyncTransactor;

  constructor(transactor: SyncTransactor) {
    this.#transactor = transactor;
  }

  run<T>(op: RowOp, then: (answer: Answer | Failure) => T): T {
    const refs = distinct(refsOf(op));
    let answer: Answer;
    const failed = this.#transactor.transact(
      refs,
      (rows) => {
        answer = applyOp(op, rows, op.now);
        return op.now;
      },
      !(op.kind === 'usage' || (op.kind === 'decide' && !op.commit && op.ban === undefined)),
    );
    return then(failed instanceof Failure ? failed : answer);
  }

  onRecover(callback: () => void): void {
    this.#transactor.onRecover(callback);
  }
}

function distinct(refs: RowRef[]): RowRef[] {
  const sorted = refs.sort(byId);
  return sorted.filter((ref, i) => i === 0 || (sorted[i - 1] as RowRef).id !== ref.id);
}
