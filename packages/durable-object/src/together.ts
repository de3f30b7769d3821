/**
 * Calls over several policies of one key: a composite's decision (Store.consumeAll) and a booking
 * (Store.reserveAll, core's reserve.ts contract). One object holds every policy of its key, so each
 * is one op that the object decides in one synchronous step: all or nothing, as on the memory store
 * (it is the memory store's consumeAll and reserveAll, run in the object).
 *
 * Failure: a composite the object could not decide goes to the failure policy over every member
 * (the fallback's consumeAll: all or nothing there too). A booking the object could not make is
 * refused (`failed`, every member's decision the 'closed' denial) and reported as 'reserve', never
 * decided by the failure policy: a fallback in one isolate cannot keep a queue that every isolate
 * shares, and 'open' would send at once a request its caller asked to queue (reserve.ts). A cancel
 * the object could not make answers false (reported as 'cancel'): the units stay spent, the safe
 * side of the limit. The wait itself happens in the Worker (core's reserve/wait, the adapters'
 * delay mode): the object only books the instant and answers how far away it is, and is never held.
 */
import type { Booking, Decision, Policy, StoreBinding } from '@ratekeeper/core';
import type { Backend } from './backend.js';
import { DurableObjectBinding, unreadable } from './binding.js';
import { Failure, closedDecision, decisionsOf, fallbackDecision, info, openDecision } from './failure.js';
import type { FallbackStore } from './options.js';
import type { Answer, Booked, OpBody } from './protocol.js';

/** PreparedMembers is a composite's members, checked once (Store.prepareAll). */
export interface PreparedMembers {
  readonly members: readonly DurableObjectBinding[];
  readonly policies: readonly Policy[];
  readonly name: string;
}

/** prepareMembers checks that every binding is a plain (unbanned) binding of this store, under distinct names. */
export function prepareMembers(backend: Backend, bindings: readonly StoreBinding<'async'>[]): PreparedMembers {
  const members = bindings.map((binding, i) => {
    if (!(binding instanceof DurableObjectBinding) || binding.backend !== backend || binding.banMs !== undefined) {
      throw new TypeError(`DurableObjectStore: composite member ${i} is not a limiter bound to this DurableObjectStore`);
    }
    return binding;
  });
  const names = members.map((m) => m.policy.name);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) throw new TypeError(`DurableObjectStore: composite members must have distinct policy names; "${twice}" appears twice`);
  return { members, policies: members.map((m) => m.policy), name: names.join('+') };
}

function submit<T>(backend: Backend, prepared: PreparedMembers, key: string, op: OpBody, now: number, interpret: (answer: Answer | Failure) => T): Promise<T> {
  const timed = backend.clientTime ? { ...op, now } : op;
  return new Promise<T>((resolve) => backend.calls.submit(backend.objectName(key), { op: timed, policies: prepared.policies, deliver: (a) => resolve(interpret(a)) }));
}

/** decideAll is consumeAll: every member in one op, all or nothing; the failure policy over all when the object cannot. */
export function decideAll(
  backend: Backend,
  fallbackStore: FallbackStore,
  prepared: PreparedMembers,
  key: string,
  now: number,
  cost: number,
  commit: boolean,
): Promise<readonly Decision[]> {
  return submit(backend, prepared, key, { op: 'decide', cost, commit }, now, (answer) => {
    const decisions = answer instanceof Failure ? undefined : decisionsOf(answer, prepared.policies);
    if (decisions !== undefined) return decisions;
    backend.report(info(commit ? 'consume' : 'peek', prepared.name, answer instanceof Failure ? answer : unreadable()));
    if (backend.onFailure === 'open') return prepared.policies.map((p) => openDecision(p, cost));
    if (backend.onFailure === 'closed') return prepared.policies.map(closedDecision);
    const fallbacks = prepared.members.map((m) => m.fallback);
    return fallbackStore.consumeAll(fallbacks, key, now, cost, commit).map((d, i) => fallbackDecision(d, prepared.policies[i] as Policy));
  });
}

/** bookAll is reserveAll: one op books every member at one instant, or none; `maxWaitMs` -1 means no bound. */
export function bookAll(backend: Backend, prepared: PreparedMembers, key: string, now: number, cost: number, maxWaitMs: number): Promise<Booking<'async'>> {
  return submit(backend, prepared, key, { op: 'reserve', cost, maxWaitMs }, now, (answer) => {
    const booked = bookedOf(answer);
    const decisions = booked === undefined ? undefined : decisionsOf(booked.figures, prepared.policies);
    if (booked !== undefined && decisions !== undefined) {
      const cancel = booked.booking === 0 ? () => Promise.resolve(false) : canceller(backend, prepared, key, booked.booking);
      return { ok: booked.ok, delayMs: booked.delayMs, decisions, cancel };
    }
    backend.report(info('reserve', prepared.name, answer instanceof Failure ? answer : unreadable()));
    return { ok: false, delayMs: Infinity, decisions: prepared.policies.map(closedDecision), failed: true, cancel: () => Promise.resolve(false) };
  });
}

/** canceller is a booking's cancel: one op, at most one success. */
function canceller(backend: Backend, prepared: PreparedMembers, key: string, booking: number): (now: number) => Promise<boolean> {
  let live = true;
  return (now) => {
    if (!live) return Promise.resolve(false);
    return submit(backend, prepared, key, { op: 'cancel', booking }, now, (answer) => {
      if (answer === true) {
        live = false;
        return true;
      }
      if (answer !== false) backend.report(info('cancel', prepared.name, answer instanceof Failure ? answer : unreadable()));
      return false;
    });
  };
}

function bookedOf(answer: Answer | Failure): Booked | undefined {
  if (typeof answer !== 'object' || answer === null || answer instanceof Failure || Array.isArray(answer)) return undefined;
  const b = answer as Partial<Booked>;
  return typeof b.ok === 'boolean' && typeof b.delayMs === 'number' && typeof b.booking === 'number' && Array.isArray(b.figures) ? (b as Booked) : undefined;
}
