/**
 * Composite decisions on Redis: several policies for one request in ONE script call, all or nothing
 * (see lua/composite-script.ts). Every member's key carries the same hash tag, so the call is legal
 * on Redis Cluster.
 *
 * A plan (the script, the members, the ARGV tail, the fallback bindings) is built once per bindings
 * array, which CompositeLimiter passes unchanged on every call. Building it checks that every member
 * is a binding of this store, that no two share a policy name (they would share a key) and that there
 * are at most 16: violations are programming errors, and throw a TypeError when CompositeLimiter is
 * built (RedisStore.prepareAll).
 */
import type { Decision, Policy, StoreBinding } from '@ratekeeper/core';
import { type Backend, RedisBinding, asFailure, info } from './binding.js';
import { closedDecision, decodeAll, fallbackDecision, openDecision } from './decisions.js';
import { encodeKey } from './keys.js';
import { MAX_MEMBERS, compositeScript } from './lua/composite-script.js';
import type { Script, StepName } from './lua/scripts.js';
import type { FallbackStore } from './options.js';

export interface Plan {
  readonly script: Script;
  readonly members: readonly RedisBinding[];
  readonly policies: readonly Policy[];
  readonly params: readonly string[];
  readonly name: string;
  readonly fallbacks: readonly StoreBinding<'sync'>[];
}

export function makePlan(backend: Backend, bindings: readonly StoreBinding<'async'>[]): Plan {
  const members = bindings.map((binding, i) => {
    if (!(binding instanceof RedisBinding) || binding.backend !== backend) {
      throw new TypeError(`RedisStore: composite member ${i} is not bound to this RedisStore`);
    }
    return binding as RedisBinding;
  });
  const names = members.map((m) => m.policy.name);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) {
    throw new TypeError(`RedisStore: composite members must have distinct policy names; "${twice}" appears twice`);
  }
  if (members.length > MAX_MEMBERS) {
    throw new TypeError(`RedisStore: a composite may have at most ${MAX_MEMBERS} members, got ${members.length}`);
  }
  const policies = members.map((m) => m.policy);
  return {
    script: compositeScript(
      policies.map((p) => p.algorithm as StepName), // RedisBinding members only: every one has a Lua step
      backend.clientTime,
    ),
    members,
    policies,
    params: members.flatMap((m) => m.params),
    name: names.join('+'),
    fallbacks: members.map((m) => m.fallback),
  };
}

/** decideComposite runs the composite script and, when Redis cannot answer, the failure policy. */
export function decideComposite(backend: Backend, fallbackStore: FallbackStore, plan: Plan, key: string, now: number, cost: number, commit: boolean): Promise<readonly Decision[]> {
  const tag = `${encodeKey(key)}}`;
  const n = plan.members.length;
  const command = ['EVALSHA', plan.script.sha, String(n)];
  for (const member of plan.members) command.push(`${member.head}${tag}`);
  if (backend.clientTime) command.push(String(now));
  command.push(String(commit ? cost : -cost), ...plan.params, '0');
  backend.batcher?.flush();
  return backend.remote.eval(plan.script, command, command[3] as string, (ended) => {
    const decisions = decodeAll(ended, plan.policies);
    if (decisions !== undefined) return decisions;
    backend.report(info(commit ? 'consume' : 'peek', plan.name, asFailure(ended)));
    return decideWithout(backend, fallbackStore, plan, key, now, cost, commit);
  });
}

function decideWithout(backend: Backend, fallbackStore: FallbackStore, plan: Plan, key: string, now: number, cost: number, commit: boolean): readonly Decision[] {
  if (backend.onFailure === 'open') return plan.members.map((m) => openDecision(m.policy, cost));
  if (backend.onFailure === 'closed') return plan.members.map((m) => closedDecision(m.policy));
  return fallbackStore.consumeAll(plan.fallbacks, key, now, cost, commit).map((d, i) => fallbackDecision(d, plan.policies[i] as Policy));
}
