/**
 * RedisBans: the Redis side of core's Bans contract (core/src/ban.ts). The ban is a key beside the
 * policy's state, `<state key>:ban`, in the same hash tag (one cluster slot), holding the instant the
 * ban ends (with that much TTL); one script (BAN_BODY) checks it and runs the algorithm's step, so a banned or
 * unbanned decision is still one round trip, atomic with every other decision on the key.
 *
 * When Redis cannot answer, the store's failure policy decides through the policy's binding, without
 * the ban (the fallback does not know of bans set in Redis); the failure is reported as always.
 */
import type { Decision, StoreBinding } from '@ratekeeper/core';
import { asFailure, info, type RedisBinding } from './binding.js';
import { decodeOne } from './decisions.js';
import { Failure } from './failure.js';
import { type Script, banScript } from './lua/scripts.js';

export class RedisBans implements StoreBinding<'async'> {
  readonly #inner: RedisBinding;
  readonly #banMs: string;
  readonly #script: Script;

  constructor(inner: RedisBinding, banMs: number, algorithm: Parameters<typeof banScript>[0]) {
    this.#inner = inner;
    this.#banMs = String(banMs);
    this.#script = banScript(algorithm, inner.backend.clientTime);
  }

  consume(key: string, now: number, cost: number): Promise<Decision> {
    return this.#run(key, now, cost, true);
  }

  peek(key: string, now: number, cost: number): Promise<Decision> {
    return this.#run(key, now, cost, false);
  }

  allow(key: string, now: number, cost: number): Promise<boolean> {
    return this.#run(key, now, cost, true).then((d) => d.allowed);
  }

  /** reset lifts the ban and empties the key. */
  reset(key: string): Promise<void> {
    const banKey = `${this.#inner.keyOf(key)}:ban`;
    const lifted = this.#inner.backend.remote.command(['DEL', banKey], banKey, (ended) => {
      if (ended instanceof Failure) this.#inner.backend.report(info('reset', this.#inner.policy.name, ended));
    });
    return Promise.all([lifted, this.#inner.reset(key)]).then(() => undefined);
  }

  refund(key: string, now: number, cost: number): Promise<void> {
    return this.#inner.refund(key, now, cost);
  }

  #run(key: string, now: number, cost: number, commit: boolean): Promise<Decision> {
    const inner = this.#inner;
    const stateKey = inner.keyOf(key);
    const [first, second] = inner.params;
    const signed = String(commit ? cost : -cost);
    const sha = this.#script.sha;
    const command = inner.backend.clientTime
      ? ['EVALSHA', sha, '2', stateKey, `${stateKey}:ban`, String(now), signed, first, second, this.#banMs, '0']
      : ['EVALSHA', sha, '2', stateKey, `${stateKey}:ban`, signed, first, second, this.#banMs, '0'];
    // The last argument is the deadline's place: Remote sets it on every send (./remote.ts).
    return inner.backend.remote.eval(this.#script, command, stateKey, (ended) => {
      const decision = decodeOne(ended, inner.policy);
      if (decision !== undefined) return decision;
      inner.backend.report(info(commit ? 'consume' : 'peek', inner.policy.name, asFailure(ended)));
      return inner.decideWithout(key, now, cost, commit);
    });
  }
}
