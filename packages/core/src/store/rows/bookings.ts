/**
 * Reservations on a row store (Store.reserveAll, core's reserve.ts contract): a booking, and a cancel,
 * is one op of the store (./book.ts runs the memory store's booking code on the locked rows), so it is
 * decided with the other calls in the store's one order, at the store's time.
 *
 * A booking the store could not make is refused (`failed`, every member's decision the 'closed'
 * denial) and reported ('reserve'), never decided by the failure policy: a local fallback cannot keep
 * the queue other processes share, and 'open' would send at once a request its caller asked to queue.
 * A cancel the store could not make answers false ('cancel'): the units stay spent, the safe side. At
 * most one cancel of a booking succeeds.
 */
import type { Decision } from '../../decision.js';
import type { Booking, Mode, Result } from '../contract.js';
import { closedDecision } from '../remote/decisions.js';
import { Failure } from '../remote/failure.js';
import type { RowBinding } from './binding.js';
import type { RowEngine } from './engine.js';
import type { Booked } from './ops.js';

/**
 * A booking id: a random base per process (below 2^52 in all) and a counter, so a cancel finds its own
 * entry in a shared ledger. The base is drawn at the first booking, never at load: Workers refuse random
 * values in global scope.
 */
let idBase: number | undefined;
let ids = 0;

function nextId(): number {
  idBase ??= (globalThis.crypto.getRandomValues(new Uint32Array(1))[0] as number) % 2 ** 20;
  return idBase * 2 ** 32 + (ids++ % 2 ** 32);
}

/** bookAll is RowStore.reserveAll over `members` (one binding, or a composite's); `maxWaitMs` -1 means no bound. */
export function bookAll<M extends Mode>(engine: RowEngine<M>, members: readonly RowBinding<M>[], key: string, now: number, cost: number, maxWaitMs: number): Result<M, Booking<M>> {
  const name = members.map((m) => m.policy.name).join('+');
  const parts = members.map((m) => m.part(key));
  const ledgers = members.map((m) => m.ledgerRef(key));
  const id = nextId();
  return engine.runner.run({ kind: 'book', parts, ledgers, now, cost, maxWaitMs, id }, (answer): Booking<M> => {
    if (answer instanceof Failure) {
      engine.report('reserve', name, answer);
      return { ok: false, failed: true, delayMs: Number.POSITIVE_INFINITY, decisions: members.map((m) => closedDecision(m.policy)), cancel: never(engine) };
    }
    const booked = answer as Booked;
    let live = booked.cancellable;
    const cancel = (when: number): Result<M, boolean> => {
      if (!live) return never(engine)();
      return engine.runner.run({ kind: 'cancel', parts, ledgers, now: when, id }, (done) => {
        if (done instanceof Failure) {
          engine.report('cancel', name, done);
          return false;
        }
        if (done === true) live = false;
        return done === true;
      });
    };
    return { ok: booked.ok, delayMs: booked.delayMs, decisions: booked.decisions as readonly Decision[], cancel };
  });
}

function never<M extends Mode>(engine: RowEngine<M>): () => Result<M, boolean> {
  return () => (engine.runner.mode === 'sync' ? false : Promise.resolve(false)) as Result<M, boolean>;
}
