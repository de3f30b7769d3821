/**
 * MySqlBinding: one rate limit's policy on a MySqlStore. Each call joins the store's next batch
 * (../wire/batcher.ts), which decides it in one transaction with core's own step (../rows/steps.ts,
 * ../wire/transaction.ts); the promise resolves, never rejects. Whatever keeps the database from deciding is
 * decided by the store's failure policy instead ('fallback', 'open', 'closed': core's store kit),
 * reported through the store's 'failure' event, and never also decided by the database.
 */
import type { Algorithm, Decision, Policy, StoreBinding } from '@ratekeeper/core';
import { type FailureInfo, Failure, Fallback, type FailurePolicy, type FallbackStore, decideByPolicy, failureInfo } from '@ratekeeper/core/store';
import type { Batcher } from '../wire/batcher.js';
import { encodeKey } from '../rows/codec.js';
import { LEDGER } from '../rows/ledger.js';
import type { Ban, Call, Kind, Member } from '../rows/steps.js';

/** Backend: what every binding of one store shares. */
export interface Backend {
  readonly batcher: Batcher;
  readonly onFailure: FailurePolicy;
  readonly fallbackStore: FallbackStore;
  fallbackDivisor(): number;
  report(info: FailureInfo): void;
}

export type Operation = FailureInfo['operation'];

/** asFailure is what ended a batch that did not decide, as a Failure. */
export function asFailure(ended: unknown): Failure {
  return ended instanceof Failure ? ended : new Failure('reply', ended);
}

export class MySqlBinding<P extends Policy = Policy> implements StoreBinding<'async'>, Member {
  /** @internal The store's shared state, for this package's files. */
  readonly backend: Backend;
  readonly policy: P;
  readonly algorithm: Algorithm<Policy>;
  /** The row of this policy's booking ledgers (reserve: ../rows/ledger.ts). */
  readonly bookings: Member;
  readonly #fallback: Fallback;

  /** @internal Made by the store's bind (limiters call it). */
  constructor(backend: Backend, algorithm: Algorithm<P>, policy: P) {
    this.backend = backend;
    this.policy = policy;
    this.algorithm = algorithm as Algorithm<Policy>;
    this.bookings = { policy: Object.freeze({ ...(policy as Policy), name: `${policy.name}#book` }), algorithm: LEDGER };
    this.#fallback = new Fallback(backend.fallbackStore, algorithm as Algorithm<Policy>, policy, () => backend.fallbackDivisor());
  }

  /** fallback is the in-process binding of this policy's share that decides while the database cannot. */
  get fallback(): StoreBinding<'sync'> {
    return this.#fallback.binding;
  }

  consume(key: string, now: number, cost: number): Promise<Decision> {
    return this.decide('consume', 'consume', key, now, cost);
  }

  peek(key: string, now: number, cost: number): Promise<Decision> {
    return this.decide('peek', 'peek', key, now, cost);
  }

  allow(key: string, now: number, cost: number): Promise<boolean> {
    return this.decide('allow', 'consume', key, now, cost).then((d) => d.allowed);
  }

  /** reset empties the key in the database and in the fallback. */
  reset(key: string): Promise<void> {
    return this.resetWith(key, undefined);
  }

  /** refund gives back up to `cost` units with the algorithm's refund step; when the database cannot take it, the fallback gets it, where the charge went meanwhile. */
  refund(key: string, now: number, cost: number): Promise<void> {
    return this.refundWith(key, now, cost, undefined);
  }

  /**
   * resetWith is reset, lifting `ban` too (./bans.ts).
   * @internal
   */
  resetWith(key: string, ban: Ban | undefined): Promise<void> {
    this.fallback.reset(key);
    return this.#submit('reset', key, 0, 0, ban, (_, failure) => {
      if (failure !== undefined) this.backend.report(failureInfo('reset', this.policy.name, failure));
    });
  }

  /**
   * refundWith is refund, lifting `ban` when the algorithm then admits the cost that started it (./bans.ts).
   * @internal
   */
  refundWith(key: string, now: number, cost: number, ban: Ban | undefined): Promise<void> {
    return this.#submit('refund', key, now, cost, ban, (_, failure) => {
      if (failure === undefined) return;
      this.backend.report(failureInfo('refund', this.policy.name, failure));
      this.fallback.refund?.(key, now, cost);
    });
  }

  /**
   * decide decides one call, with `ban` in front when given (./bans.ts); the failure policy decides without it.
   * @internal
   */
  decide(operation: Operation, kind: Kind, key: string, now: number, cost: number, ban?: Ban): Promise<Decision> {
    return this.#submit(kind, key, now, cost, ban, (decisions, failure) => {
      if (failure === undefined) return (decisions as readonly Decision[])[0] as Decision;
      this.backend.report(failureInfo(operation, this.policy.name, failure));
      return decideByPolicy(this.backend.onFailure, this.policy, this.fallback, key, now, cost, kind === 'consume');
    });
  }

  #submit<T>(
    kind: Kind,
    key: string,
    now: number,
    cost: number,
    ban: Ban | undefined,
    answer: (decisions: readonly Decision[] | undefined, failure: Failure | undefined) => T,
  ): Promise<T> {
    return new Promise<T>((resolve) => {
      const call: Call = {
        kind,
        members: [this],
        key: encodeKey(key),
        now,
        cost,
        ...(ban === undefined ? {} : { ban }),
        deliver: (decisions, ended) => resolve(answer(decisions, decisions === undefined ? asFailure(ended) : undefined)),
      };
      this.backend.batcher.submit(call);
    });
  }
}
