/**
 * Reservations on Redis (RedisStore.reserveAll, core's reserve.ts contract): one atomic script books a
 * request for one policy or for every member of a composite (lua/reserve-script.ts), another cancels
 * it. Both run on the server's TIME by default (`time: 'client'`: the limiter's clock), go straight to
 * Redis through Remote (the batcher is flushed first, so a consume sent before is decided before), and
 * carry the deadline every script does, so a call that failed changed nothing.
 *
 * Failure: a reservation Redis could not make is refused (`failed`, every member's decision the
 * 'closed' denial), reported once through the store's 'failure' event ('reserve'), and never decided
 * by the store's failure policy: a local fallback cannot keep a queue that other processes share, and
 * 'open' would send at once a request its caller asked to queue. A cancel Redis could not make
 * answers false (reported as 'cancel'): the units stay spent, the safe side of the limit.
 */
import type { Booking, Decision, Policy } from '@ratekeeper/core';
import { type Backend, asFailure, info } from './binding.js';
import type { PreparedMembers } from './composite.js';
import { closedDecision } from '@ratekeeper/core/store';
import { decisionAt, numberOf } from './transport/decisions.js';
import { encodeKey } from './keys.js';
import { cancelScript, reserveScript } from './lua/reserve-script.js';
import type { Script, StepName } from './lua/scripts.js';

/** PreparedReserve is a composite's prepared members (or one member) with its two reservation scripts. */
export interface PreparedReserve {
  readonly prepared: PreparedMembers;
  readonly reserve: Script;
  readonly cancel: Script;
}

export function prepareReserve(backend: Backend, prepared: PreparedMembers): PreparedReserve {
  // A PreparedMembers holds RedisBinding members only (core refuses to book a concurrency limit): each has a Lua step.
  const algorithms = prepared.policies.map((p) => p.algorithm as StepName);
  return { prepared, reserve: reserveScript(algorithms, backend.clientTime), cancel: cancelScript(algorithms, backend.clientTime) };
}

/** bookOnRedis books `cost` for `key` on every prepared member; `maxWaitMs` -1 means no bound. */
export function bookOnRedis(backend: Backend, rp: PreparedReserve, key: string, now: number, cost: number, maxWaitMs: number): Promise<Booking<'async'>> {
  const { prepared } = rp;
  const keys = keysOf(prepared, key);
  const command = ['EVALSHA', rp.reserve.sha, String(keys.length), ...keys];
  if (backend.clientTime) command.push(String(now));
  command.push(String(cost), ...prepared.params, String(maxWaitMs), '0');
  backend.batcher?.flush();
  return backend.remote.eval(rp.reserve, command, keys[0] as string, (ended) => {
    const booking = decodeBooking(ended, prepared.policies, (at, id) => cancelOnRedis(backend, rp, keys, at, id));
    if (booking !== undefined) return booking;
    backend.report(info('reserve', prepared.name, asFailure(ended)));
    return { ok: false, delayMs: Infinity, decisions: prepared.policies.map(closedDecision), failed: true, cancel: () => Promise.resolve(false) };
  });
}

/** keysOf lists the members' state keys, then their booking keys (each holds the member's ledger, lua/ledger.ts). */
function keysOf(prepared: PreparedMembers, key: string): string[] {
  const tag = `${encodeKey(key)}}`;
  const states = prepared.members.map((m) => `${m.head}${tag}`);
  return [...states, ...states.map((k) => `${k}:r`)];
}

type Canceller = (at: string, id: string) => (now: number) => Promise<boolean>;

/** decodeBooking reads the reserve script's reply (lua/reserve-script.ts); undefined for any other shape. */
function decodeBooking(reply: unknown, policies: readonly Policy[], canceller: Canceller): Booking<'async'> | undefined {
  if (!Array.isArray(reply)) return undefined;
  const n = policies.length;
  const decisions = (from: number): Decision[] => policies.map((p, i) => decisionAt(reply, from + 4 * i, p));
  if (reply[0] === 0 && reply.length === 2 + 4 * n) {
    return { ok: false, delayMs: numberOf(reply[1]), decisions: decisions(2), cancel: () => Promise.resolve(false) };
  }
  if (reply[0] !== 1 || reply.length !== 4 + 4 * n) return undefined;
  const id = String(reply[3 + 4 * n]);
  // A booking that goes at once has no id: nothing is left to cancel (its instant has come).
  const cancel = id === '0' ? () => Promise.resolve(false) : canceller(String(reply[2]), id);
  return { ok: true, delayMs: numberOf(reply[1]), decisions: decisions(3), cancel };
}

/** cancelOnRedis is a booking's cancel: one script call, at most one success. */
function cancelOnRedis(backend: Backend, rp: PreparedReserve, keys: readonly string[], at: string, id: string): (now: number) => Promise<boolean> {
  let live = true;
  return (now) => {
    if (!live) return Promise.resolve(false);
    const command = ['EVALSHA', rp.cancel.sha, String(keys.length), ...keys];
    if (backend.clientTime) command.push(String(now));
    command.push('1', ...rp.prepared.params, at, id, '0');
    backend.batcher?.flush();
    return backend.remote.eval(rp.cancel, command, keys[0] as string, (ended) => {
      if (ended === 2) {
        live = false;
        for (const state of keys.slice(0, keys.length / 2)) backend.denyCache?.forget(state); // units came back: a remembered denial may no longer hold
        return true;
      }
      if (ended !== 1) backend.report(info('cancel', rp.prepared.name, asFailure(ended)));
      return false;
    });
  };
}
