/**
 * RedisBans: the Redis side of core's Bans contract (core/src/limiter/ban.ts). The ban is a key beside the
 * policy's state, `<state key>:ban`, in the same hash tag (one cluster slot), holding the instant the
 * ban ends (with that much TTL); one script (BAN_BODY) checks it and runs the algorithm's step, so a banned or
 * unbanned decision is still one round trip, atomic with every other decision on the key.
 *
 * A refund is one script too (banRefundScript): it gives the units back and, in the same call, lifts a
 * running ban when the step now admits the cost whose denial started it (core's ban.ts: a ban stands
 * only while the charges that still count leave no room), atomically with every other call on the key,
 * whichever process sends it.
 *
 * When Redis cannot answer, the store's failure policy decides through the policy's binding, without
 * the ban (the fallback does not know of bans set in Redis); the failure is reported as always, and a
 * refund Redis could not make goes to the fallback, as the policy's own refund does.
 */
import type { Decision, StoreBinding } from '@ratekeeper/core';
import { asFailure, info, type RedisBinding } from './binding.js';
import { decodeOne } from './transport/decisions.js';
import { Failure } from '@ratekeeper/core/store';
import { type Script, banRefundScript, banScript } from './lua/scripts.js';

export class RedisBans implements StoreBinding<'async'> {
  readonly #inner: RedisBinding;
  readonly #banMs: string;
  readonly #script: Script;
  readonly #refund: Script;

  constructor(inner: RedisBinding, banMs: number, algorithm: Parameters<typeof banScript>[0]) {
    this.#inner = inner;
    this.#banMs = String(banMs);
    this.#script = banScript(algorithm, inner.backend.clientTime);
    this.#refund = banRefundScript(algorithm, inner.backend.clientTime);
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

  /** refund gives `cost` back and lifts a ban the units now cover, in one script call. */
  refund(key: string, now: number, cost: number): Promise<void> {
    const inner = this.#inner;
    const { backend } = inner;
    const stateKey = inner.keyOf(key);
    backend.denyCache?.forget(stateKey);
    backend.batcher?.flush(); // a consume queued before the refund is decided before it
    const [first, second] = inner.params;
    const sha = this.#refund.sha;
    const command = backend.clientTime
      ? ['EVALSHA', sha, '2', stateKey, `${stateKey}:ban`, String(now), String(cost), first, second, '0']
      : ['EVALSHA', sha, '2', stateKey, `${stateKey}:ban`, String(cost), first, second, '0'];
    return backend.remote.eval(this.#refund, command, stateKey, (ended) => {
      backend.denyCache?.forget(stateKey);
      if (!(ended instanceof Failure)) return;
      backend.report(info('refund', inner.policy.name, ended));
      inner.fallback.refund?.(key, now, cost);
    });
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
