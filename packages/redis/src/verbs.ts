/**
 * rate-limiter-flexible's verbs on Redis: core's StoreBinding `charge`, `usage` and (behind a ban)
 * `block`, each one script call on the policy's key (./lua/verb-scripts.ts), atomic with every other
 * call on it. A charge or a usage read goes after the decisions queued before it (the batcher is
 * flushed first) and forgets the key's remembered denial (a charge changes when it ends).
 *
 * When Redis cannot answer, the failure is reported and the fallback binding the caller names answers
 * (behind a ban, the fallback's own ban in front: core's Fallback.bannedFor): a charge is counted there
 * (where requests are then decided), a usage read reads it, a block is set there.
 */
import type { Policy, StoreBinding, Usage } from '@ratekeeper/core';
import { Failure, type FailureInfo, failureInfo, toUsage } from '@ratekeeper/core/store';
import type { Script } from './lua/scripts.js';
import { type StepName, blockScript, chargeScript, usageScript } from './lua/verb-scripts.js';
import type { Batcher } from './transport/batcher.js';
import { numberOf } from './transport/decisions.js';
import type { DenyCache } from './transport/deny-cache.js';
import type { RedisRemote } from './transport/remote.js';

/** Host is what the verbs need of a Host (./binding.ts), which holds them. */
interface Host {
  readonly backend: {
    readonly remote: RedisRemote;
    readonly clientTime: boolean;
    readonly batcher: Batcher | undefined;
    readonly denyCache: DenyCache | undefined;
    report(info: FailureInfo): void;
  };
  readonly policy: Policy;
  readonly params: readonly [string, string];
  keyOf(key: string): string;
}

/** Verbs are one binding's verb scripts, made once. */
export class Verbs {
  readonly #charge: Script;
  readonly #usage: Script;
  readonly #block: Script;

  constructor(step: StepName, clientTime: boolean) {
    this.#charge = chargeScript(step, clientTime);
    this.#usage = usageScript(step, clientTime);
    this.#block = blockScript(clientTime);
  }

  /** charge adds `cost` to `key` under `binding` (with the ban `banKey`'s time left, when given); `fallback` takes it while Redis cannot. */
  charge(binding: Host, fallback: StoreBinding<'sync'>, key: string, now: number, cost: number, banKey?: string): Promise<Usage> {
    return this.#run(binding, this.#charge, key, now, cost, banKey, () => {
      fallback.charge?.(key, now, cost);
      return fallback.usage?.(key, now) as Usage;
    });
  }

  /** usage reads `key`'s usage under `binding` (with the ban `banKey`'s time left, when given); `fallback`'s while Redis cannot answer. */
  usage(binding: Host, fallback: StoreBinding<'sync'>, key: string, now: number, banKey?: string): Promise<Usage> {
    return this.#run(binding, this.#usage, key, now, 1, banKey, () => fallback.usage?.(key, now) as Usage);
  }

  /** block sets the ban `banKey` of `key` to end at now + ms at the latest of its ends; `fallback`'s ban while Redis cannot. */
  block(binding: Host, fallback: StoreBinding<'sync'>, key: string, now: number, ms: number, banKey: string): Promise<void> {
    const { backend } = binding;
    const [first, second] = binding.params;
    const sha = this.#block.sha;
    const command = backend.clientTime ? ['EVALSHA', sha, '1', banKey, String(now), String(ms), first, second, '0'] : ['EVALSHA', sha, '1', banKey, String(ms), first, second, '0'];
    return backend.remote.eval(this.#block, command, banKey, (ended) => {
      if (ended === 1) return;
      backend.report(failureInfo('block', binding.policy.name, ended instanceof Failure ? ended : unexpected()));
      if (ended instanceof Failure) fallback.block?.(key, now, ms);
    });
  }

  #run(binding: Host, script: Script, key: string, now: number, cost: number, banKey: string | undefined, failed: () => Usage): Promise<Usage> {
    const { backend } = binding;
    const stateKey = binding.keyOf(key);
    backend.denyCache?.forget(stateKey);
    backend.batcher?.flush(); // a decision queued before this call is taken before it
    const [first, second] = binding.params;
    const keys = banKey === undefined ? ['1', stateKey] : ['2', stateKey, banKey];
    const args = backend.clientTime ? [String(now), String(cost), first, second, '0'] : [String(cost), first, second, '0'];
    const operation = script === this.#charge ? 'charge' : 'usage';
    return backend.remote.eval(script, ['EVALSHA', script.sha, ...keys, ...args], stateKey, (ended) => {
      if (operation === 'charge') backend.denyCache?.forget(stateKey);
      const usage = usageOf(ended, binding);
      if (usage !== undefined) return usage;
      backend.report(failureInfo(operation, binding.policy.name, ended instanceof Failure ? ended : unexpected()));
      return failed();
    });
  }
}

/** usageOf reads a verb script's reply: { used, remaining, resetAfterMs, blockedMs }; undefined for another shape. */
function usageOf(reply: unknown, binding: Host): Usage | undefined {
  if (!Array.isArray(reply) || reply.length !== 4) return undefined;
  return toUsage({ used: numberOf(reply[0]), remaining: numberOf(reply[1]), resetAfterMs: numberOf(reply[2]) }, binding.policy, numberOf(reply[3]));
}

function unexpected(): Failure {
  return new Failure('reply', new TypeError('RedisStore: the script reply has an unexpected shape'));
}
