/**
 * Composite decisions on Redis: several policies for one request in ONE script call, all or nothing
 * (see lua/composite-script.ts). Every member's key carries the same hash tag, so the call is legal
 * on Redis Cluster. With batching on, a composite decision is a call of a group of several policies
 * in the Batcher (./transport/batcher.ts): concurrent composite and single decisions go to Redis together, in
 * the order they were made, each composite still all or nothing in the batch script.
 *
 * A composite's prepared members (the script, the members, the ARGV tail) are built once per bindings
 * array, which CompositeLimiter passes unchanged on every call. Building it checks that every member
 * is a binding of this store, that no two share a policy name (they would share a key) and that there
 * are at most 16: violations are programming errors, and throw a TypeError when CompositeLimiter is
 * built (RedisStore.prepareAll).
 */
import type { Decision, Policy, StoreBinding } from '@ratekeeper/core';
import type { Group } from './transport/batcher.js';
import { type Backend, RedisBinding, asFailure, info } from './binding.js';
import { closedDecision, fallbackDecision, openDecision } from '@ratekeeper/core/store';
import { decodeAll } from './transport/decisions.js';
import { encodeKey } from './keys.js';
import { BATCHED } from './lua/batch-script.js';
import { MAX_MEMBERS, compositeScript } from './lua/composite-script.js';
import type { Script, StepName } from './lua/scripts.js';
import type { FallbackStore } from '@ratekeeper/core/store';

export interface PreparedMembers {
  readonly script: Script;
  readonly members: readonly RedisBinding[];
  readonly policies: readonly Policy[];
  readonly params: readonly string[];
  readonly name: string;
  /** The members as one group of the batch script, with the composite script's command. */
  readonly group: Group;
}

export function prepareMembers(backend: Backend, bindings: readonly StoreBinding<'async'>[]): PreparedMembers {
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
  const script = compositeScript(
    policies.map((p) => p.algorithm as StepName), // RedisBinding members only: every one has a Lua step
    backend.clientTime,
  );
  const params = members.flatMap((m) => m.params);
  const n = String(members.length);
  const clientTime = backend.clientTime;
  const group: Group = {
    size: members.length,
    spec: [n, ...members.flatMap((m) => [String(BATCHED.indexOf(m.policy.algorithm as StepName) + 1), ...m.params])],
    script,
    command: (keys, now, signed) => {
      const command = ['EVALSHA', script.sha, n, ...keys];
      if (clientTime) command.push(String(now));
      // The last argument is the deadline's place: Remote sets it on every send.
      command.push(signed, ...params, '0');
      return command;
    },
    sentIn: 0,
    index: 0,
  };
  return { script, members, policies, params, name: names.join('+'), group };
}

/** decideComposite runs the composite script and, when Redis cannot answer, the failure policy. */
export function decideComposite(
  backend: Backend,
  fallbackStore: FallbackStore,
  prepared: PreparedMembers,
  key: string,
  now: number,
  cost: number,
  commit: boolean,
): Promise<readonly Decision[]> {
  const tag = `${encodeKey(key)}}`;
  const keys = prepared.members.map((member) => `${member.head}${tag}`);
  const interpret = (ended: unknown): readonly Decision[] => {
    const decisions = decodeAll(ended, prepared.policies);
    if (decisions !== undefined) return decisions;
    backend.report(info(commit ? 'consume' : 'peek', prepared.name, asFailure(ended)));
    return decideWithout(backend, fallbackStore, prepared, key, now, cost, commit);
  };
  const first = keys[0] as string;
  if (backend.batcher !== undefined) return backend.batcher.submit(keys, first, prepared.group, cost, commit, now, interpret);
  return backend.remote.eval(prepared.script, prepared.group.command(keys, now, String(commit ? cost : -cost)), first, interpret);
}

function decideWithout(backend: Backend, fallbackStore: FallbackStore, prepared: PreparedMembers, key: string, now: number, cost: number, commit: boolean): readonly Decision[] {
  if (backend.onFailure === 'open') return prepared.members.map((m) => openDecision(m.policy, cost));
  if (backend.onFailure === 'closed') return prepared.members.map((m) => closedDecision(m.policy));
  const fallbacks = prepared.members.map((m) => m.fallback);
  return fallbackStore.consumeAll(fallbacks, key, now, cost, commit).map((d, i) => fallbackDecision(d, prepared.policies[i] as Policy));
}
