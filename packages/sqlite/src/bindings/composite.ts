/**
 * Composites on a SqliteStore: every member decided in ONE transaction, all or nothing, exactly as the
 * memory store's decideAll: each member evaluates, and only if all admit does any of them write; a
 * member that admitted inside a denied composite reports what it holds as it stands. Concurrency
 * members (./leases.ts) take their leases in the same transaction, so a request denied by a rate takes
 * no lease and one denied a lease spends no rate, with no moment in between.
 *
 * A composite's members are checked once, when CompositeLimiter is built (prepareAll): every member a binding of this
 * store, no two with one policy name (they would share rows). A violation is a TypeError naming
 * SqliteStore there, never from consume.
 */
import type { Decision, StoreBinding } from '@ratekeeper/core';
import { type Backend, info } from './backend.js';
import type { Member } from './binding.js';
import { closedDecision, fallbackDecision, openDecision } from '@ratekeeper/core/store';
import { Failure } from '../file/failure.js';
import { encodeKey } from '../rows/keys.js';

export interface PreparedMembers {
  readonly members: readonly Member[];
  readonly name: string;
}

/** prepareMembers checks a composite's bindings (see above). */
export function prepareMembers(backend: Backend, bindings: readonly StoreBinding<'sync'>[], isMember: (b: unknown) => b is Member): PreparedMembers {
  const members = bindings.map((binding, i) => {
    if (!isMember(binding) || binding.backend !== backend) throw new TypeError(`SqliteStore: composite member ${i} is not bound to this SqliteStore`);
    return binding;
  });
  const names = members.map((m) => m.policy.name);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) throw new TypeError(`SqliteStore: composite members must have distinct policy names; "${twice}" appears twice`);
  return { members, name: names.join('+') };
}

/** decideAll decides a composite in one transaction, or by the failure policy when the file cannot. */
export function decideAll(backend: Backend, prepared: PreparedMembers, key: string, now: number, cost: number, commit: boolean): readonly Decision[] {
  const stored = encodeKey(key);
  const members = prepared.members;
  const decided = backend.file.transact(commit, (sql) => {
    let allowed = true;
    for (const m of members) if (!m.evaluate(sql, stored, now, cost)) allowed = false;
    const decisions = members.map((m) => m.decision());
    if (allowed) {
      if (commit) for (const m of members) m.commit(sql, stored, cost);
      return decisions;
    }
    return decisions.map((d, i) => (d.allowed ? (members[i] as Member).held(sql, stored) : d));
  });
  for (const m of members) m.afterTransaction?.(!(decided instanceof Failure) && commit);
  if (!(decided instanceof Failure)) return decided;
  backend.report(info(commit ? 'consume' : 'peek', prepared.name, decided));
  if (backend.onFailure === 'open') return members.map((m) => openDecision(m.policy, cost));
  if (backend.onFailure === 'closed') return members.map((m) => closedDecision(m.policy));
  const fallbacks = members.map((m) => m.fallback);
  const decisions = backend.fallbackStore.consumeAll(fallbacks, key, now, cost, commit);
  // Leases the fallback took are released there (./leases.ts).
  if (commit && decisions.every((d) => d.allowed)) for (const m of members) m.fellBack?.(key, cost);
  return decisions.map((d, i) => fallbackDecision(d, (members[i] as Member).policy));
}
