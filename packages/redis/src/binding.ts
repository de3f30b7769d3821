/**
 * RedisBinding: one limiter's policy on a RedisStore. Each call is one EVALSHA of the policy's script
 * on one key; whatever keeps Redis from deciding is decided by the store's failure policy instead
 * (core's packages/core/src/store/remote/failure.ts), so the promises resolve, never reject.
 *
 * The 'fallback' policy decides on an in-process binding of the same algorithm and policy, created
 * here once. Its counts are its own: they are not merged into Redis when Redis comes back.
 */
import type { Algorithm, Decision, Policy, StoreBinding, Usage } from '@ratekeeper/core';
import type { Batcher, Group } from './transport/batcher.js';
import type { DenyCache } from './transport/deny-cache.js';
import { allowedOf, decodeOne } from './transport/decisions.js';
import { Failure, type FailureInfo, type FailurePolicy, type Fallback, type Owed, decideByPolicy, failureInfo } from '@ratekeeper/core/store';
import { encodeKey, keyHead } from './keys.js';
import { BATCHED } from './lua/batch-script.js';
import { type Script, type StepName, refundScript, singleScript } from './lua/scripts.js';
import type { Interpret, RedisRemote } from './transport/remote.js';
import { Verbs } from './verbs.js';

type Operation = FailureInfo['operation'];

/** Backend is what a binding needs from its store. */
export interface Backend {
  readonly remote: RedisRemote;
  readonly prefix: string;
  readonly onFailure: FailurePolicy;
  /** clientTime: the scripts take `now` from the call instead of reading the server's TIME. */
  readonly clientTime: boolean;
  /** Where single decisions are queued to go to Redis together (./transport/batcher.ts), when batching is on. */
  readonly batcher: Batcher | undefined;
  /** Denials remembered until their wait is over (./transport/deny-cache.ts), when the deny cache is on. */
  readonly denyCache: DenyCache | undefined;
  /** The number each fallback divides its policy by: the option, or the peers last seen (./transport/peers.ts). */
  fallbackDivisor(): number;
  /** Refunds never sent while Redis was away, sent again when it answers (core's Owed). */
  readonly owed: Owed;
  report(info: FailureInfo): void;
}

/**
 * scriptParams is a policy's two parameters, as JavaScript's String(number): capacity and refill
 * interval for a token bucket, window and limit for the windows and the sliding log.
 */
export function scriptParams(policy: Policy): readonly [string, string] {
  return policy.algorithm === 'token-bucket' ? [String(policy.capacity), String(policy.intervalMs)] : [String(policy.windowMs), String(policy.limit)];
}

export class RedisBinding<P extends Policy = Policy> implements StoreBinding<'async'> {
  /** @internal (the store's connection and batching, shared by its bindings) */
  readonly backend: Backend;
  readonly policy: P;
  readonly params: readonly [string, string];
  readonly #fallback: Fallback;
  /** head is everything in this policy's keys before the encoded user key. */
  readonly head: string;
  readonly #script: Script;
  /** This policy as a group of one: its entry in the batch script's layout, and its own command. */
  readonly #group: Group;
  readonly #refund: Script;
  /** @internal rate-limiter-flexible's verbs on this policy (./verbs.ts), for this binding and its bans. */
  readonly verbs: Verbs;

  /** @internal Made by the store's bind (limiters call it). */
  constructor(backend: Backend, algorithm: Algorithm<P>, policy: P, fallback: Fallback) {
    this.backend = backend;
    this.policy = policy;
    this.params = scriptParams(policy);
    this.#fallback = fallback;
    this.head = keyHead(backend.prefix, policy.name);
    // RedisStore.bind sends only algorithms with a Lua step here (a concurrency limit has RedisConcurrency).
    const step = algorithm.name as StepName;
    this.#script = singleScript(step, backend.clientTime);
    const script = this.#script;
    const clientTime = backend.clientTime;
    const [first, second] = this.params;
    this.#group = {
      size: 1,
      spec: ['1', String(BATCHED.indexOf(step) + 1), first, second],
      script,
      // The last argument is the deadline's place: Remote sets it on every send.
      command: (key, now, signed) =>
        clientTime ? ['EVALSHA', script.sha, '1', key as string, String(now), signed, first, second, '0'] : ['EVALSHA', script.sha, '1', key as string, signed, first, second, '0'],
      sentIn: 0,
      index: 0,
    };
    this.#refund = refundScript(step, backend.clientTime);
    this.verbs = new Verbs(step, backend.clientTime);
  }

  /** fallback is the in-process binding of this policy's share that decides while Redis cannot. */
  get fallback(): StoreBinding<'sync'> {
    return this.#fallback.binding;
  }

  /** @internal fallbackFor is the fallback with a ban of `banMs` in front (core's Fallback.bannedFor), or the plain one. */
  fallbackFor(banMs: number | undefined): StoreBinding<'sync'> {
    return banMs === undefined ? this.#fallback.binding : this.#fallback.bannedFor(banMs);
  }

  /** keyOf is the Redis key of this policy's state for `key`. */
  keyOf(key: string): string {
    return `${this.head}${encodeKey(key)}}`;
  }

  consume(key: string, now: number, cost: number): Promise<Decision> {
    const cache = this.backend.denyCache;
    if (cache === undefined) return this.#run(key, now, cost, true, (ended) => decodeOne(ended, this.policy) ?? this.#failed('consume', ended, key, now, cost, true));
    // The cache runs on the limiter's clock in client time (deterministic), else on this process's.
    // It is shared by the store's bindings, so it is keyed by the Redis key: one policy's denial of a
    // user key says nothing about another policy's.
    const clientTime = this.backend.clientTime;
    const sentAt = clientTime ? now : performance.now();
    const redisKey = this.keyOf(key);
    const cached = cache.answer(redisKey, cost, sentAt);
    if (cached !== undefined) return Promise.resolve(cached);
    const stamp = cache.stamp();
    return this.#run(
      key,
      now,
      cost,
      true,
      (ended) => {
        const decision = decodeOne(ended, this.policy);
        if (decision === undefined) return this.#failed('consume', ended, key, now, cost, true);
        if (decision.allowed) cache.admitted(redisKey);
        else cache.remember(redisKey, cost, sentAt, clientTime ? now : performance.now(), decision, stamp);
        return decision;
      },
      redisKey,
      redisKey, // a consume that waits in the batcher asks the cache again as its batch goes
    );
  }

  peek(key: string, now: number, cost: number): Promise<Decision> {
    return this.#run(key, now, cost, false, (ended) => decodeOne(ended, this.policy) ?? this.#failed('peek', ended, key, now, cost, false));
  }

  allow(key: string, now: number, cost: number): Promise<boolean> {
    return this.#run(key, now, cost, true, (ended) => allowedOf(ended) ?? this.#failed('allow', ended, key, now, cost, true).allowed);
  }

  /**
   * reset clears the key in Redis (its state and its latest booking, ./reserve.ts: the same hash tag)
   * and in the fallback; a failure is reported and otherwise ignored.
   */
  reset(key: string): Promise<void> {
    this.fallback.reset(key);
    this.backend.denyCache?.forget(this.keyOf(key));
    this.backend.batcher?.flush();
    const redisKey = this.keyOf(key);
    return this.backend.remote.command(['DEL', redisKey, `${redisKey}:r`], redisKey, (ended) => {
      this.backend.denyCache?.forget(redisKey); // again at the reply: a resent call may run after a denial sent later
      if (ended instanceof Failure) this.backend.report(info('reset', this.policy.name, ended));
    });
  }

  /**
   * refund gives `cost` back to the key in one atomic script (the algorithm's refund port). When Redis
   * cannot answer, the failure is reported and the refund goes to the fallback binding, which is where
   * the charge went while Redis was away; a refund that was never sent (the breaker open) is also owed
   * to Redis and sent again when it answers (core's Owed), where the charge it gives back was recorded.
   * One that may have run (a timeout, a lost connection) is not: sent twice, it would give back twice.
   */
  refund(key: string, now: number, cost: number): Promise<void> {
    return this.#refundOn(key, now, cost, (ended) => {
      this.backend.report(info('refund', this.policy.name, ended));
      this.fallback.refund?.(key, now, cost);
    });
  }

  #refundOn(key: string, now: number, cost: number, failed: (ended: Failure) => void): Promise<void> {
    // A remembered denial may no longer hold once units come back; a batched consume goes first.
    this.backend.denyCache?.forget(this.keyOf(key));
    this.backend.batcher?.flush();
    const redisKey = this.keyOf(key);
    const [first, second] = this.params;
    const sha = this.#refund.sha;
    const command = this.backend.clientTime
      ? ['EVALSHA', sha, '1', redisKey, String(now), String(cost), first, second, '0']
      : ['EVALSHA', sha, '1', redisKey, String(cost), first, second, '0'];
    return this.backend.remote.eval(this.#refund, command, redisKey, (ended) => {
      // Again at the reply: a refund Redis ran past its deadline is sent again, after a denial sent later.
      this.backend.denyCache?.forget(redisKey);
      if (!(ended instanceof Failure)) return;
      failed(ended);
      if (ended.reason === 'unavailable') this.#owe(key, now, cost);
    });
  }

  #owe(key: string, now: number, cost: number): void {
    this.backend.owed.owe(this.policy.name, () => void this.#refundOn(key, now, cost, () => {}));
  }

  /** charge adds `cost` to the key whatever the limit says, in one script call (./verbs.ts). */
  charge(key: string, now: number, cost: number): Promise<Usage> {
    return this.verbs.charge(this, this.fallback, key, now, cost);
  }

  /** usage reads the key's usage in one script call, writing nothing (./verbs.ts). */
  usage(key: string, now: number): Promise<Usage> {
    return this.verbs.usage(this, this.fallback, key, now);
  }

  /**
   * #run decides one request: through the batcher when batching is on, else as one EVALSHA of this
   * policy's script. `cached` is the deny-cache key of a consume, whose answer the batcher may give.
   */
  #run<T>(key: string, now: number, cost: number, commit: boolean, interpret: Interpret<T>, redisKey = this.keyOf(key), cached?: string): Promise<T> {
    const group = this.#group;
    const batcher = this.backend.batcher;
    if (batcher !== undefined) return batcher.submit(redisKey, redisKey, group, cost, commit, now, interpret, cached);
    return this.backend.remote.eval(this.#script, group.command(redisKey, now, String(commit ? cost : -cost)), redisKey, interpret);
  }

  #failed(operation: Operation, ended: unknown, key: string, now: number, cost: number, commit: boolean): Decision {
    this.backend.report(info(operation, this.policy.name, asFailure(ended)));
    return this.decideWithout(key, now, cost, commit);
  }

  /** decideWithout is the failure policy's decision for this binding alone (with a ban of `banMs` in front, on the fallback, when given). */
  decideWithout(key: string, now: number, cost: number, commit: boolean, banMs?: number): Decision {
    return decideByPolicy(this.backend.onFailure, this.policy, this.fallbackFor(banMs), key, now, cost, commit);
  }
}

/** asFailure turns an answer that is not a usable reply into a Failure. */
export function asFailure(ended: unknown): Failure {
  return ended instanceof Failure ? ended : new Failure('reply', new TypeError('RedisStore: the script reply has an unexpected shape'));
}

/** info is the 'failure' event's payload (core's failureInfo). */
export const info: (operation: Operation, policy: string, failure: Failure) => FailureInfo = failureInfo;
