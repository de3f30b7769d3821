/**
 * Reservations on a MySqlStore (MySqlStore.reserveAll, core's reserve.ts contract: never early, first
 * come first served per key, a cancel before the instant leaving every member as if never booked while
 * the bookings behind keep their instants). A booking, and a cancel, is one call of the store's next
 * batch: decided in its transaction with the members' states and booking ledgers locked (../rows/steps.ts,
 * ../rows/ledger.ts), at the database's clock by default, so it is exact for any number of processes, and
 * never decided twice (a transaction past its deadline commits nothing: ../wire/transaction.ts).
 *
 * Failure: a booking the database could not make is refused (`failed`, every member's decision the
 * 'closed' denial), reported through the store's 'failure' event ('reserve'), and never decided by the
 * failure policy: a local fallback cannot keep the queue other processes share, and 'open' would send
 * at once a request its caller asked to queue. A cancel the database could not make answers false
 * (reported as 'cancel'): the units stay spent, the safe side of the limit.
 */
import { randomInt } from 'node:crypto';
import type { Booking, Decision } from '@ratekeeper/core';
import { closedDecision, failureInfo } from '@ratekeeper/core/store';
import { type MySqlBinding, asFailure } from './binding.js';
import { encodeKey } from '../rows/codec.js';
import type { Booking as Booked, Cancel } from '../rows/steps.js';

/** book is MySqlStore.reserveAll over `members` (one binding, or a composite's); `maxWaitMs` -1 means no bound. */
export function book(members: readonly MySqlBinding[], key: string, now: number, cost: number, maxWaitMs: number): Promise<Booking<'async'>> {
  const backend = (members[0] as MySqlBinding).backend;
  const name = members.map((m) => m.policy.name).join('+');
  const stored = encodeKey(key);
  // The entry's id in every member's ledger: a cancel finds its booking by id and instant.
  const booked: Booked = { maxWaitMs, id: randomInt(2 ** 47), ok: false, delayMs: Infinity, at: Infinity, cancellable: false };
  return new Promise((resolve) => {
    backend.batcher.submit({
      kind: 'reserve',
      members,
      key: stored,
      now,
      cost,
      booking: booked,
      deliver: (decisions, ended) => {
        if (decisions === undefined) {
          backend.report(failureInfo('reserve', name, asFailure(ended)));
          resolve({ ok: false, failed: true, delayMs: Infinity, decisions: members.map((m) => closedDecision(m.policy)), cancel: never });
          return;
        }
        const cancel = booked.ok && booked.cancellable ? canceller(members, stored, booked, name) : never;
        resolve({ ok: booked.ok, delayMs: booked.delayMs, decisions: decisions as Decision[], cancel });
      },
    });
  });
}

/** canceller is a booking's cancel: one call of a batch, at most one success. */
function canceller(members: readonly MySqlBinding[], key: Buffer, booked: Booked, name: string): (now: number) => Promise<boolean> {
  const backend = (members[0] as MySqlBinding).backend;
  let live = true;
  return (now) => {
    if (!live) return Promise.resolve(false);
    const cancel: Cancel = { id: booked.id, at: booked.at, done: false };
    return new Promise((resolve) => {
      backend.batcher.submit({
        kind: 'cancel',
        members,
        key,
        now,
        cost: 0,
        cancel,
        deliver: (decisions, ended) => {
          if (decisions === undefined) {
            backend.report(failureInfo('cancel', name, asFailure(ended)));
            resolve(false);
            return;
          }
          if (cancel.done) live = false;
          resolve(cancel.done);
        },
      });
    });
  };
}

const never = (): Promise<boolean> => Promise.resolve(false);
