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
 * rate-limiter-flexible's verbs behind a ban: `charge` and `usage` read the ban's time left in the same
 * script call, and `block` sets the ban directly (./verbs.ts), ending at the later of its ends, with a
 * denial cost of 0, which no refund lifts.
 *
 * When Redis cannot answer, the store's failure policy decides on the fallback with a ban of its own in
 * front (core's Fallback.bannedFor: the bans set in Redis are out of reach, and the fallback bans what
 * its own denials ban); the failure is reported as always, and a refund, a reset, a charge, a usage
 * read or a block Redis could not take goes to that fallback.
 */
import type { Decision, StoreBinding, Usage } from '@ratekeeper/core';
import { asFailure, info, type RedisBinding } from './binding.js';
import { decodeOne } from './transport/decisions.js';
import { Failure } from '@ratekeeper/core/store';
import { type Script, banRefundScript, banScript } from './lua/scripts.js';

export class RedisBans implements StoreBinding<'async'> {
  readonly #inner: RedisBinding;
  readonly #banMs: string;
  readonly #ms: number;
  readonly #script: Script;
  readonly #refund: Script;

  constructor(inner: RedisBinding, banMs: number, algorithm: Parameters<typeof banScript>[0]) {
    this.#inner = inner;
    this.#banMs = String(banMs);
    this.#ms = banMs;
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
    this.#inner.fallbackFor(this.#ms).reset(key);
    return Promise.all([lifted, this.#inner.reset(key)]).then(() => undefined);
  }

  /**
   * refund gives `cost` back and lifts a ban the units now cover, in one script call; one Redis cannot
   * take goes to the fallback, and one never sent (the breaker open) is owed to Redis too, as the
   * policy's own refund is (./binding.ts).
   */
  refund(key: string, now: number, cost: number): Promise<void> {
    return this.#refundOn(key, now, cost, (ended) => {
      this.#inner.backend.report(info('refund', this.#inner.policy.name, ended));
      this.#inner.fallbackFor(this.#ms).refund?.(key, now, cost);
    });
  }

  #refundOn(key: string, now: number, cost: number, failed: (ended: Failure) => void): Promise<void> {
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
      failed(ended);
      if (ended.reason === 'unavailable') backend.owed.owe(inner.policy.name, () => void this.#refundOn(key, now, cost, () => {}));
    });
  }

  /** charge charges the policy, ban or not (starting none); the Usage carries the ban's time left. */
  charge(key: string, now: number, cost: number): Promise<Usage> {
    return this.#inner.verbs.charge(this.#inner, this.#inner.fallbackFor(this.#ms), key, now, cost, `${this.#inner.keyOf(key)}:ban`);
  }

  /** usage is the policy's usage with the time left in the key's ban. */
  usage(key: string, now: number): Promise<Usage> {
    return this.#inner.verbs.usage(this.#inner, this.#inner.fallbackFor(this.#ms), key, now, `${this.#inner.keyOf(key)}:ban`);
  }

  /** block bans the key until now + ms, or a running ban's later end; no refund lifts it. */
  block(key: string, now: number, ms: number): Promise<void> {
    return this.#inner.verbs.block(this.#inner, this.#inner.fallbackFor(this.#ms), key, now, ms, `${this.#inner.keyOf(key)}:ban`);
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
    // The last argument is the deadline's place: Remote sets it on every send (./transport/remote.ts).
    return inner.backend.remote.eval(this.#script, command, stateKey, (ended) => {
      const decision = decodeOne(ended, inner.policy);
      if (decision !== undefined) return decision;
      inner.backend.report(info(commit ? 'consume' : 'peek', inner.policy.name, asFailure(ended)));
      return inner.decideWithout(key, now, cost, commit, this.#ms);
    });
  }
}
