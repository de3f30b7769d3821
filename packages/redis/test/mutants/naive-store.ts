/**
 * MUTANT — RedisStore without its failure layer: the same scripts, but each call awaits the client
 * with no timeout, no breaker and no failure policy, so a hung Redis holds every request and an error
 * reply rejects the caller's promise. The fault harnesses must catch it (latency over the bound, a
 * rejected decision), or they do not test what they claim. Never use it.
 */
import type { Algorithm, Decision, Policy, Store, StoreBinding } from '@ratekeeper/core';
import { scriptParams } from '../../src/binding.js';
import { decodeOne } from '../../src/transport/decisions.js';
import { storageKey } from '../../src/keys.js';
import { type StepName, singleScript } from '../../src/lua/scripts.js';

interface CallClient {
  call(command: string, ...args: string[]): Promise<unknown>;
}

export class NaiveStore implements Store<'async'> {
  readonly mode = 'async';
  readonly #client: CallClient;
  readonly #prefix: string;

  constructor(client: CallClient, prefix: string) {
    this.#client = client;
    this.#prefix = prefix;
  }

  bind<P extends Policy>(algorithm: Algorithm<P>, policy: P): StoreBinding<'async'> {
    const script = singleScript(algorithm.name as StepName, false);
    const params = scriptParams(policy);
    const decide = async (key: string, cost: number, commit: boolean): Promise<Decision> => {
      const args = ['1', storageKey(this.#prefix, policy.name, key), String(commit ? cost : -cost), ...params, String(Number.MAX_SAFE_INTEGER)];
      const reply = await this.#client.call('EVAL', script.source, ...args);
      return decodeOne(reply, policy) as Decision;
    };
    return {
      consume: (key, _now, cost) => decide(key, cost, true),
      peek: (key, _now, cost) => decide(key, cost, false),
      allow: (key, _now, cost) => decide(key, cost, true).then((d) => d.allowed),
      reset: async (key) => {
        await this.#client.call('DEL', storageKey(this.#prefix, policy.name, key));
      },
    };
  }
}
