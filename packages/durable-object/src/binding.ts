/**
 * DurableObjectBinding: one limiter's policy on a DurableObjectStore. Each call is one op for the
 * key's object (calls.ts batches it with the request's other calls to that object); whatever keeps
 * the object from deciding is decided by the store's failure policy instead, so the promises
 * resolve, never reject. With `banMs` the binding is a BanLimiter's: the object decides the ban in
 * front of the policy in the same op (core's ban.ts contract, run by the object's MemoryBans).
 *
 * The 'fallback' policy decides on an in-isolate binding of the same algorithm and policy, created
 * once. Its counts are its own: they are not merged into the object when it answers again. Bans are
 * not known to it (the fallback decides the policy alone, as RedisStore's does).
 */
import type { Decision, Policy, StoreBinding } from '@ratekeeper/core';
import { Failure, type FailureInfo, closedDecision, decisionsOf, fallbackDecision, info, openDecision } from './failure.js';
import type { Answer, OpBody } from './protocol.js';
import type { Backend } from './backend.js';

type Operation = FailureInfo['operation'];

export class DurableObjectBinding<P extends Policy = Policy> implements StoreBinding<'async'> {
  /** @internal The store's shared state, for this package's files. */
  readonly backend: Backend;
  readonly policy: P;
  readonly policies: readonly Policy[];
  /** The in-isolate binding the 'fallback' policy decides on. */
  readonly fallback: StoreBinding<'sync'>;
  readonly banMs: number | undefined;

  /** @internal Made by the store's bind (limiters call it). */
  constructor(backend: Backend, policy: P, fallback: StoreBinding<'sync'>, banMs?: number) {
    this.backend = backend;
    this.policy = policy;
    this.policies = [policy];
    this.fallback = fallback;
    this.banMs = banMs;
  }

  /** withBan is this binding with a ban of `banMs` decided in front of it (Store.banned). */
  withBan(banMs: number): DurableObjectBinding<P> {
    return new DurableObjectBinding(this.backend, this.policy, this.fallback, banMs);
  }

  consume(key: string, now: number, cost: number): Promise<Decision> {
    return this.#decide(key, now, cost, true, 'consume');
  }

  peek(key: string, now: number, cost: number): Promise<Decision> {
    return this.#decide(key, now, cost, false, 'peek');
  }

  allow(key: string, now: number, cost: number): Promise<boolean> {
    return this.#decide(key, now, cost, true, 'allow').then((d) => d.allowed);
  }

  /** reset empties the key (and lifts its ban); an object that cannot answer is reported, and the fallback reset too. */
  reset(key: string): Promise<void> {
    return this.#call(key, { op: 'reset' }, 0, (answer) => {
      if (!(answer instanceof Failure)) return;
      this.backend.report(info('reset', this.policy.name, answer));
      this.fallback.reset(key);
    });
  }

  /** refund gives up to `cost` back (and may lift a ban: core's ban.ts); when the object cannot, the fallback gets it, where the charge went. */
  refund(key: string, now: number, cost: number): Promise<void> {
    return this.#call(key, { op: 'refund', cost }, now, (answer) => {
      if (!(answer instanceof Failure)) return;
      this.backend.report(info('refund', this.policy.name, answer));
      this.fallback.refund?.(key, now, cost);
    });
  }

  #decide(key: string, now: number, cost: number, commit: boolean, operation: Operation): Promise<Decision> {
    return this.#call(key, { op: 'decide', cost, commit }, now, (answer) => {
      const decision = answer instanceof Failure ? undefined : decisionsOf(answer, this.policies)?.[0];
      if (decision !== undefined) return decision;
      this.backend.report(info(operation, this.policy.name, answer instanceof Failure ? answer : unreadable()));
      return this.decideWithout(key, now, cost, commit);
    });
  }

  #call<T>(key: string, op: OpBody, now: number, interpret: (answer: Answer | Failure) => T): Promise<T> {
    const timed = this.backend.clientTime ? { ...op, now } : op;
    const full = this.banMs === undefined ? timed : { ...timed, banMs: this.banMs };
    return new Promise<T>((resolve) => this.backend.calls.submit(this.backend.objectName(key), { op: full, policies: this.policies, deliver: (a) => resolve(interpret(a)) }));
  }

  /** decideWithout is the failure policy's decision for this binding alone. */
  decideWithout(key: string, now: number, cost: number, commit: boolean): Decision {
    const policy = this.backend.onFailure;
    if (policy === 'open') return openDecision(this.policy, cost);
    if (policy === 'closed') return closedDecision(this.policy);
    return fallbackDecision(commit ? this.fallback.consume(key, now, cost) : this.fallback.peek(key, now, cost), this.policy);
  }
}

/** unreadable is the failure of an answer this store cannot read. */
export function unreadable(): Failure {
  return new Failure('reply', new TypeError('DurableObjectStore: the object answered with an unexpected shape'));
}
