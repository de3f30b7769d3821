/**
 * SqliteBinding: one rate limit's policy on a SqliteStore. Each call is one transaction on the file
 * (../file/file.ts): read the key's state, run core's own TypeScript step on it (the algorithm's `evaluate`,
 * the very code the memory store runs), and, when allowed, write the next state back. Inside the
 * transaction no other connection can write the file, so the step sees the key's latest state and its
 * result is the only one recorded: the decisions are the memory store's, bit for bit, whatever the
 * number of processes (the differential and 8-process tests hold it to that). Nothing is ported, so
 * nothing can drift from the specification.
 *
 * Whatever keeps the file from deciding is decided by the store's failure policy instead ('fallback',
 * 'open', 'closed'), reported through the store's 'failure' event; no call throws for it.
 */
import { type Algorithm, type Decision, type Policy, type StoreBinding } from '@ratekeeper/core';
import { type StepOutput, stepOutput, toDecision } from '@ratekeeper/core/store';
import { type Backend, type Operation, decideWithout, fallbackOf, heldAt, info } from './backend.js';
import type { Fallback } from '@ratekeeper/core/store';
import { Failure } from '../file/failure.js';
import { encodeKey } from '../rows/keys.js';
import type { Sql } from '../sql/sql.js';
import { PolicyTable } from '../rows/table.js';

/** Member is what a composite needs of each of its bindings inside its one transaction (./composite.ts). */
export interface Member {
  readonly policy: Policy;
  readonly backend: Backend;
  readonly fallback: StoreBinding<'sync'>;
  /** evaluate decides `cost` for `key` at `now` without writing; decision/commit/held then refer to it. */
  evaluate(sql: Sql, key: Uint8Array, now: number, cost: number): boolean;
  decision(): Decision;
  commit(sql: Sql, key: Uint8Array, cost: number): void;
  /** held reports the key as it stands (for a member that admitted inside a denied composite). */
  held(sql: Sql, key: Uint8Array): Decision;
  /** afterTransaction runs once the transaction is over, told whether it committed (a lease is held only once its row is). */
  afterTransaction?(committed: boolean): void;
  /** fellBack records what the fallback admitted for this member while the file could not decide. */
  fellBack?(key: string, cost: number): void;
}

export class SqliteBinding<P extends Policy = Policy> implements StoreBinding<'sync'>, Member {
  /** @internal The store's shared state, for this package's files. */
  readonly backend: Backend;
  /** @internal */
  readonly table: PolicyTable<P>;
  readonly #out: StepOutput;
  readonly #fallback: Fallback;
  /** The last evaluate's state, instants and cost. */
  #state: Float64Array | undefined;
  #at = 0;
  #now = 0;

  /** @internal Made by the store's bind (limiters call it). */
  constructor(backend: Backend, algorithm: Algorithm<P>, policy: P) {
    this.backend = backend;
    this.table = new PolicyTable(policy.name, algorithm, policy, backend.maxKeys);
    this.#out = stepOutput(algorithm.stateSize);
    this.#fallback = fallbackOf(backend, algorithm as Algorithm<Policy>, policy);
  }

  get policy(): P {
    return this.table.policy;
  }

  /** fallback is the in-process binding of this policy's share that decides while the file cannot. */
  get fallback(): StoreBinding<'sync'> {
    return this.#fallback.binding;
  }

  /** evictions counts the live keys of this policy that this process evicted to respect maxKeys. */
  get evictions(): number {
    return this.table.evictions;
  }

  consume(key: string, now: number, cost: number): Decision {
    return this.#decide('consume', key, now, cost, true);
  }

  peek(key: string, now: number, cost: number): Decision {
    return this.#decide('peek', key, now, cost, false);
  }

  allow(key: string, now: number, cost: number): boolean {
    return this.#decide('allow', key, now, cost, true).allowed;
  }

  /** reset empties the key in the file (its bookings too) and in the fallback. */
  reset(key: string): void {
    this.fallback.reset(key);
    const stored = encodeKey(key);
    const done = this.backend.file.transact(true, (sql) => this.resetIn(sql, stored));
    if (done instanceof Failure) this.backend.report(info('reset', this.policy.name, done));
  }

  /**
   * refund gives back up to `cost` units with the algorithm's own refund step, in one transaction.
   * When the file cannot take it, the refund goes to the fallback, where the charge went meanwhile.
   */
  refund(key: string, now: number, cost: number): void {
    const stored = encodeKey(key);
    const done = this.backend.file.transact(true, (sql) => this.refundIn(sql, stored, now, cost));
    if (!(done instanceof Failure)) return;
    this.backend.report(info('refund', this.policy.name, done));
    this.fallback.refund?.(key, now, cost);
  }

  /**
   * refundIn is refund's work inside a transaction (also a ban's: ./bans.ts).
   * @internal
   */
  refundIn(sql: Sql, key: Uint8Array, now: number, cost: number): void {
    const { algorithm, policy } = this.table;
    if (algorithm.refund === undefined) return;
    const at = this.table.enter(sql, now);
    const state = this.table.read(sql, key);
    if (state !== undefined && algorithm.refund(policy, state, 0, at, cost, this.#out)) this.table.write(sql, key, this.#out.next, at);
  }

  /**
   * resetIn is reset's work inside a transaction: the key's state and its bookings.
   * @internal
   */
  resetIn(sql: Sql, key: Uint8Array): void {
    this.table.remove(sql, key);
    sql.removeLedger.run(this.table.name, key);
  }

  /** @internal */
  evaluate(sql: Sql, key: Uint8Array, now: number, cost: number): boolean {
    const table = this.table;
    this.#now = now;
    this.#at = table.enter(sql, now);
    this.#state = table.read(sql, key);
    table.algorithm.evaluate(table.policy, this.#state, 0, this.#at, cost, this.#out);
    return this.#out.allowed;
  }

  decision(): Decision {
    return heldAt(toDecision(this.#out, this.policy), this.#at, this.#now);
  }

  /** @internal */
  commit(sql: Sql, key: Uint8Array): void {
    this.table.write(sql, key, this.#out.next, this.#at);
  }

  held(): Decision {
    const out = this.#out;
    this.table.algorithm.evaluate(this.policy, this.#state, 0, this.#at, Number.MAX_SAFE_INTEGER, out);
    const held = { allowed: true, limit: this.policy.limit, remaining: out.remaining, retryAfterMs: 0, resetAfterMs: out.resetAfterMs, policy: this.policy };
    return heldAt(held, this.#at, this.#now);
  }

  /**
   * failed reports `failure` and answers the failure policy's decision for this binding.
   * @internal
   */
  failed(operation: Operation, failure: Failure, key: string, now: number, cost: number, commit: boolean): Decision {
    this.backend.report(info(operation, this.policy.name, failure));
    return decideWithout(this.backend, this.policy, this.fallback, key, now, cost, commit);
  }

  #decide(operation: Operation, key: string, now: number, cost: number, commit: boolean): Decision {
    const stored = encodeKey(key);
    const decided = this.backend.file.transact(commit, (sql) => {
      if (this.evaluate(sql, stored, now, cost) && commit) this.commit(sql, stored);
      return this.decision();
    });
    return decided instanceof Failure ? this.failed(operation, decided, key, now, cost, commit) : decided;
  }
}
