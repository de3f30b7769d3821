/**
 * Composites on a PostgresStore: every member decided in ONE op of one batch, so in one transaction,
 * all or nothing as on the memory store (../rows/apply.ts): a denial by one member costs no member anything.
 * When the database cannot decide, the failure policy decides for all members at once: 'open' and
 * 'closed' per member, 'fallback' through the fallback store's own consumeAll over the members'
 * shares.
 *
 * A composite's members are checked once, when CompositeLimiter is built (prepareAll): every member a binding of this
 * store, no two with one policy name (they would share rows). A violation is a TypeError naming
 * PostgresStore there.
 */
import type { Decision, StoreBinding } from '@ratekeeper/core';
import { Failure, closedDecision, failureInfo, fallbackDecision, openDecision } from '@ratekeeper/core/store';
import type { Op } from '../rows/apply.js';
import type { Backend } from './backend.js';
import { PostgresBinding } from './binding.js';
import { PostgresLeases } from './leases.js';

export interface PreparedMembers {
  readonly members: readonly (PostgresBinding | PostgresLeases)[];
  readonly name: string;
}

/** prepareMembers checks a composite's bindings (see above). */
export function prepareMembers(backend: Backend, bindings: readonly StoreBinding<'async'>[]): PreparedMembers {
  const members = bindings.map((binding, i) => {
    if (!(binding instanceof PostgresBinding || binding instanceof PostgresLeases) || binding.backend !== backend) {
      throw new TypeError(`PostgresStore: composite member ${i} is not bound to this PostgresStore`);
    }
    return binding;
  });
  const names = members.map((m) => m.policy.name);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) throw new TypeError(`PostgresStore: composite members must have distinct policy names; "${twice}" appears twice`);
  return { members, name: names.join('+') };
}

/** decideAll decides a composite in one op, or by the failure policy when the database cannot. */
export function decideAll(backend: Backend, prepared: PreparedMembers, key: string, now: number, cost: number, commit: boolean): Promise<readonly Decision[]> {
  const { members } = prepared;
  const parts = members.map((m) => m.part(key));
  const op: Op = { kind: 'decide', parts, now, cost, commit };
  // A lease member records what it took once the composite is decided: its leases, or the policy's units.
  const took = (open: boolean | undefined) =>
    members.forEach((m, i) => {
      if (!(m instanceof PostgresLeases)) return;
      if (open === undefined) m.taken(key, (parts[i] as ReturnType<PostgresLeases['part']>).lease);
      else m.fellBack(key, cost, open);
    });
  return new Promise((resolve) => {
    backend.batcher.add(op, (answer) => {
      if (!(answer instanceof Failure)) {
        const decisions = answer as readonly Decision[];
        if (commit && decisions.every((d) => d.allowed)) took(undefined);
        return resolve(decisions);
      }
      backend.report(failureInfo(commit ? 'consume' : 'peek', prepared.name, answer));
      if (backend.onFailure === 'open') {
        if (commit) took(true);
        return resolve(members.map((m) => openDecision(m.policy, cost)));
      }
      if (backend.onFailure === 'closed') return resolve(members.map((m) => closedDecision(m.policy)));
      const decisions = backend.fallbackStore.consumeAll(
        members.map((m) => m.fallback),
        key,
        now,
        cost,
        commit,
      );
      if (commit && decisions.every((d) => d.allowed)) took(false);
      resolve(decisions.map((d, i) => fallbackDecision(d, (members[i] as PostgresBinding | PostgresLeases).policy)));
    });
  });
}
