/**
 * Composites on a row store: every member decided in one op, all or nothing (./apply.ts), so one
 * atomic step of the store: a request denied by one member costs no member anything, and a lease
 * member takes its leases in the same op as the rate members spend. Members are checked once, when
 * CompositeLimiter is built (prepareAll): every member a binding of this store, no two with one policy
 * name (they would share rows), at most MAX_MEMBERS. When the store cannot decide, the failure policy
 * decides for all members at once (the fallback store's own consumeAll, all or nothing there too).
 */
import type { Decision } from '../../decision.js';
import type { Mode, Result, StoreBinding } from '../contract.js';
import { closedDecision, fallbackDecision, openDecision } from '../remote/decisions.js';
import { Failure } from '../remote/failure.js';
import { RowBinding } from './binding.js';
import type { RowEngine } from './engine.js';
import { RowLeases } from './leases.js';
import type { Part } from './ops.js';

/** MAX_MEMBERS bounds a composite (one op locks a row per member). */
export const MAX_MEMBERS = 16;

export type Member<M extends Mode> = RowBinding<M> | RowLeases<M>;

export interface Prepared<M extends Mode> {
  readonly members: readonly Member<M>[];
  /** The members' names joined by '+', for failure reports. */
  readonly name: string;
}

/** prepareMembers checks a composite's bindings (see above); it throws a TypeError naming the store. */
export function prepareMembers<M extends Mode>(engine: RowEngine<M>, bindings: readonly StoreBinding<M>[]): Prepared<M> {
  const { owner } = engine;
  if (bindings.length > MAX_MEMBERS) throw new TypeError(`${owner}: a composite has at most ${MAX_MEMBERS} members, got ${bindings.length}`);
  const members = bindings.map((binding, i) => {
    if (!(binding instanceof RowBinding || binding instanceof RowLeases) || binding.engine !== engine) {
      throw new TypeError(`${owner}: composite member ${i} is not bound to this ${owner}`);
    }
    return binding as Member<M>;
  });
  const names = members.map((m) => m.policy.name);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) throw new TypeError(`${owner}: composite members must have distinct policy names; "${twice}" appears twice`);
  return { members, name: names.join('+') };
}

/** decideAll decides a composite in one op, or by the failure policy over all members when the store cannot. */
export function decideAll<M extends Mode>(engine: RowEngine<M>, prepared: Prepared<M>, key: string, now: number, cost: number, commit: boolean): Result<M, readonly Decision[]> {
  const { members } = prepared;
  const parts: Part[] = members.map((m) => m.part(key));
  return engine.runner.run({ kind: 'decide', parts, now, cost, commit }, (answer) => {
    if (!(answer instanceof Failure)) {
      const decisions = answer as readonly Decision[];
      if (commit && decisions.every((d) => d.allowed)) members.forEach((m, i) => m instanceof RowLeases && m.taken(key, (parts[i] as Part).lease as NonNullable<Part['lease']>));
      return decisions;
    }
    engine.report(commit ? 'consume' : 'peek', prepared.name, answer);
    const took = (open: boolean) => members.forEach((m) => m instanceof RowLeases && m.fellBack(key, cost, open));
    if (engine.onFailure === 'open') {
      if (commit) took(true);
      return members.map((m) => openDecision(m.policy, cost));
    }
    if (engine.onFailure === 'closed') return members.map((m) => closedDecision(m.policy));
    const decisions = engine.fallbackStore.consumeAll(
      members.map((m) => m.fallback),
      key,
      now,
      cost,
      commit,
    );
    if (commit && decisions.every((d) => d.allowed)) took(false);
    return decisions.map((d, i) => fallbackDecision(d, (members[i] as Member<M>).policy));
  });
}
