/**
 * PostgresBinding: one rate limit's policy on a PostgresStore. Each call becomes one op of a batch
 * (../wire/batcher.ts) decided in a transaction by core's own step (../rows/apply.ts); whatever keeps the database
 * from deciding is decided by the store's failure policy instead ('fallback', 'open', 'closed'),
 * reported through the store's 'failure' event, so the promises resolve, never reject, and no error
 * text reaches a Decision.
 *
 * The 'fallback' policy decides on an in-process binding of the policy's share of the limit (core's
 * Fallback); its counts are its own, not merged into the database when it answers again.
 *
 * A ban in front of the binding (./bans.ts) rides in the same op (`decide`, `resetWith`,
 * `refundWith` with a Ban); the failure policy decides without it.
 */
import type { Algorithm, Decision, Policy, StoreBinding } from '@ratekeeper/core';
import { Failure, type FailureInfo, type Fallback, decideByPolicy, failureInfo } from '@ratekeeper/core/store';
import type { Ban, Op, Part } from '../rows/apply.js';
import { type Backend, fallbackOf } from './backend.js';
import { LEDGER_SUFFIX, nameHead, rowKey } from '../rows/keys.js';

type Operation = FailureInfo['operation'];

export class PostgresBinding<P extends Policy = Policy> implements StoreBinding<'async'> {
  /** @internal The store's shared state, for this package's files. */
  readonly backend: Backend;
  readonly algorithm: Algorithm<P>;
  readonly policy: P;
  readonly #head: string;
  readonly #ledgerHead: string;
  readonly #fallback: Fallback;

  /** @internal Made by the store's bind (limiters call it). */
  constructor(backend: Backend, algorithm: Algorithm<P>, policy: P) {
    this.backend = backend;
    this.algorithm = algorithm;
    this.policy = policy;
    this.#head = nameHead(policy.name);
    this.#ledgerHead = nameHead(policy.name + LEDGER_SUFFIX);
    this.#fallback = fallbackOf(backend, algorithm as unknown as Algorithm<Policy>, policy);
  }

  /** fallback is the in-process binding of this policy's share that decides while the database cannot. */
  get fallback(): StoreBinding<'sync'> {
    return this.#fallback.binding;
  }

  /**
   * part is this policy's share of a call on `key`.
   * @internal
   */
  part(key: string): Part {
    return { algorithm: this.algorithm as unknown as Algorithm<Policy>, policy: this.policy, row: rowKey(this.#head, key) };
  }

  /**
   * ledgerRow is the row of this policy's booking ledger for `key` (./reserve.ts).
   * @internal
   */
  ledgerRow(key: string): string {
    return rowKey(this.#ledgerHead, key);
  }

  consume(key: string, now: number, cost: number): Promise<Decision> {
    return this.decide('consume', key, now, cost, true);
  }

  peek(key: string, now: number, cost: number): Promise<Decision> {
    return this.decide('peek', key, now, cost, false);
  }

  async allow(key: string, now: number, cost: number): Promise<boolean> {
    return (await this.decide('allow', key, now, cost, true)).allowed;
  }

  reset(key: string): Promise<void> {
    return this.resetWith(key);
  }

  refund(key: string, now: number, cost: number): Promise<void> {
    return this.refundWith(key, now, cost);
  }

  /** @internal resetWith empties the key in the database (lifting `ban` too, when given) and in the fallback. */
  resetWith(key: string, ban?: Ban): Promise<void> {
    this.fallback.reset(key);
    return this.#run('reset', key, 0, 0, ban, (failure) => this.#report('reset', failure));
  }

  /**
   * @internal refundWith gives back up to `cost` units with the algorithm's own refund step (then lifts `ban`
   * when the algorithm admits the cost that started it: ../rows/apply.ts); when the database cannot take it,
   * the fallback gets it, where the charge went meanwhile.
   */
  refundWith(key: string, now: number, cost: number, ban?: Ban): Promise<void> {
    return this.#run('refund', key, now, cost, ban, (failure) => {
      this.#report('refund', failure);
      this.fallback.refund?.(key, now, cost);
    });
  }

  /** @internal decide decides one call (consume or peek: `commit`), with `ban` in front when given; the failure policy decides without it. */
  decide(operation: Operation, key: string, now: number, cost: number, commit: boolean, ban?: Ban): Promise<Decision> {
    const op: Op = { kind: 'decide', parts: [this.part(key)], now, cost, commit, ...(ban === undefined ? {} : { ban }) };
    return new Promise((resolve) => {
      this.backend.batcher.add(op, (answer) => {
        if (!(answer instanceof Failure)) return resolve((answer as readonly Decision[])[0] as Decision);
        this.#report(operation, answer);
        resolve(decideByPolicy(this.backend.onFailure, this.policy, this.fallback, key, now, cost, commit));
      });
    });
  }

  #run(kind: 'reset' | 'refund', key: string, now: number, cost: number, ban: Ban | undefined, failed: (failure: Failure) => void): Promise<void> {
    // A reset empties the key's booking ledger too: nothing booked on it is waited behind any more.
    const ledgers = kind === 'reset' ? { ledgers: [this.ledgerRow(key)] } : {};
    const op: Op = { kind, parts: [this.part(key)], now, cost, commit: true, ...ledgers, ...(ban === undefined ? {} : { ban }) };
    return new Promise((resolve) => {
      this.backend.batcher.add(op, (answer) => {
        if (answer instanceof Failure) failed(answer);
        resolve();
      });
    });
  }

  #report(operation: Operation, failure: Failure): void {
    this.backend.report(failureInfo(operation, this.policy.name, failure));
  }
}
