/**
 * RedisBinding: one limiter's policy on a RedisStore. Each call is one EVALSHA of the policy's script
 * on one key; whatever keeps Redis from deciding is decided by the store's failure policy instead
 * (see ./failure.ts), so the promises resolve, never reject.
 *
 * The 'fallback' policy decides on an in-process binding of the same algorithm and policy, created
 * here once. Its counts are its own: they are not merged into Redis when Redis comes back.
 */
import type { Algorithm, Decision, Policy, StoreBinding } from '@ratekeeper/core';
import { closedDecision, decisionAt, fallbackDecision, isReply, openDecision } from './decisions.js';
import { Failure, type FailureInfo } from './failure.js';
import { encodeKey, keyHead } from './keys.js';
import { ALGORITHM_CODES, SCRIPTS, type Script } from './lua/scripts.js';
import type { FailurePolicy } from './options.js';
import type { Remote } from './remote.js';

type Operation = FailureInfo['operation'];

/** Backend is what a binding needs from its store. */
export interface Backend {
  readonly remote: Remote;
  readonly prefix: string;
  readonly onFailure: FailurePolicy;
  /** timeArg is ARGV[1]: '' for the server's TIME, else the limiter's `now`. */
  timeArg(now: number): string;
  report(info: FailureInfo): void;
}

/** scriptParams is a policy's ARGV tail: its algorithm code and three parameters. */
export function scriptParams(policy: Policy): readonly string[] {
  if (policy.algorithm === 'token-bucket') {
    return [ALGORITHM_CODES[policy.algorithm], String(policy.capacity), String(policy.intervalMs), String(policy.burstMs)];
  }
  return [ALGORITHM_CODES[policy.algorithm], String(policy.windowMs), String(policy.limit), ''];
}

export class RedisBinding<P extends Policy = Policy> implements StoreBinding<'async'> {
  readonly backend: Backend;
  readonly policy: P;
  readonly params: readonly string[];
  readonly fallback: StoreBinding<'sync'>;
  /** head is everything in this policy's keys before the encoded user key. */
  readonly head: string;
  readonly #script: Script;

  constructor(backend: Backend, algorithm: Algorithm<P>, policy: P, fallback: StoreBinding<'sync'>) {
    this.backend = backend;
    this.policy = policy;
    this.params = scriptParams(policy);
    this.fallback = fallback;
    this.head = keyHead(backend.prefix, policy.name);
    this.#script = SCRIPTS[algorithm.name];
  }

  /** keyOf is the Redis key of this policy's state for `key`. */
  keyOf(key: string): string {
    return `${this.head}${encodeKey(key)}}`;
  }

  consume(key: string, now: number, cost: number): Promise<Decision> {
    return this.#decide('consume', key, now, cost, true);
  }

  peek(key: string, now: number, cost: number): Promise<Decision> {
    return this.#decide('peek', key, now, cost, false);
  }

  allow(key: string, now: number, cost: number): Promise<boolean> {
    return this.#decide('allow', key, now, cost, true).then((decision) => decision.allowed);
  }

  /** reset clears the key in Redis and in the fallback; a failure is reported and otherwise ignored. */
  reset(key: string): Promise<void> {
    this.fallback.reset(key);
    const redisKey = this.keyOf(key);
    return this.backend.remote.command(['DEL', redisKey], redisKey).then((outcome) => {
      if (outcome instanceof Failure) this.backend.report(info('reset', this.policy.name, outcome));
    });
  }

  #decide(operation: Operation, key: string, now: number, cost: number, commit: boolean): Promise<Decision> {
    const redisKey = this.keyOf(key);
    const p = this.params;
    const time = this.backend.timeArg(now);
    const command = ['EVALSHA', this.#script.sha, '1', redisKey, time, String(cost), commit ? '1' : '0', p[0] as string, p[1] as string, p[2] as string, p[3] as string];
    return this.backend.remote.eval(this.#script, command, redisKey).then((reply) => {
      if (isReply(reply, 1)) return decisionAt(reply, 0, this.policy);
      this.backend.report(info(operation, this.policy.name, asFailure(reply)));
      return this.decideWithout(key, now, cost, commit);
    });
  }

  /** decideWithout is the failure policy's decision for this binding alone. */
  decideWithout(key: string, now: number, cost: number, commit: boolean): Decision {
    const policy: FailurePolicy = this.backend.onFailure;
    if (policy === 'open') return openDecision(this.policy, cost);
    if (policy === 'closed') return closedDecision(this.policy);
    return fallbackDecision(commit ? this.fallback.consume(key, now, cost) : this.fallback.peek(key, now, cost));
  }
}

/** asFailure turns an outcome that is not a usable reply into a Failure. */
export function asFailure(outcome: unknown): Failure {
  return outcome instanceof Failure ? outcome : new Failure('reply', new TypeError('RedisStore: the script reply has an unexpected shape'));
}

export function info(operation: Operation, policy: string, failure: Failure): FailureInfo {
  return failure.error === undefined
    ? { operation, policy, reason: failure.reason }
    : { operation, policy, reason: failure.reason, error: failure.error };
}
