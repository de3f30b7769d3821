/**
 * RowEngine: what every binding of one row store shares: the runner its ops go through, the failure
 * policy with its fallback store and divisor, how long a concurrency lease lives, and where failures
 * are reported. A binding's fallback is the in-process binding of its policy's share of the limit
 * (core's Fallback), which decides by the 'fallback' policy while the store cannot.
 *
 * Owed work: a refund the store could not take is owed to it, not lost (../remote/owed.ts): sent
 * again each time the store recovers, where the charge it gives back was recorded.
 */
import type { Algorithm } from '../../algorithm.js';
import type { Policy } from '../../policy.js';
import type { Mode } from '../contract.js';
import type { FailurePolicy } from '../remote/decisions.js';
import { Failure, type FailureInfo, failureInfo } from '../remote/failure.js';
import { Fallback } from '../remote/fallback.js';
import { Owed } from '../remote/owed.js';
import type { FallbackStore } from '../remote/options.js';
import type { RowOp } from './ops.js';
import type { Runner } from './runner.js';

export interface EngineOptions<M extends Mode> {
  /** The store's class name, for messages ('PostgresStore'). */
  readonly owner: string;
  readonly runner: Runner<M>;
  readonly onFailure: FailurePolicy;
  readonly fallbackStore: FallbackStore;
  /** The number each fallback divides its policy by: the option, or the peers last seen. */
  fallbackDivisor(): number;
  /** How long a concurrency lease lives without renewal; undefined when the store keeps no leases. */
  readonly leaseTtlMs: number | undefined;
  report(info: FailureInfo): void;
}

export class RowEngine<M extends Mode> {
  readonly owner: string;
  readonly runner: Runner<M>;
  readonly onFailure: FailurePolicy;
  readonly fallbackStore: FallbackStore;
  readonly leaseTtlMs: number | undefined;
  readonly #options: EngineOptions<M>;
  readonly #owed: Owed;

  constructor(options: EngineOptions<M>) {
    this.#options = options;
    this.owner = options.owner;
    this.runner = options.runner;
    this.onFailure = options.onFailure;
    this.fallbackStore = options.fallbackStore;
    this.leaseTtlMs = options.leaseTtlMs;
    this.#owed = new Owed(
      (callback) => options.runner.onRecover(callback),
      (policy) => this.report('refund', policy, new Failure('unavailable')),
    );
  }

  /** fallbackOf is the in-process fallback of `policy`: its share of the limit, bound on the fallback store. */
  fallbackOf(algorithm: Algorithm<Policy>, policy: Policy): Fallback {
    return new Fallback(this.fallbackStore, algorithm, policy, () => this.#options.fallbackDivisor());
  }

  /** report tells of a call the store could not decide. */
  report(operation: FailureInfo['operation'], policy: string, failure: Failure): void {
    this.#options.report(failureInfo(operation, policy, failure));
  }

  /** owe keeps `op` (a refund the store could not take) to send again when the store recovers. */
  owe(op: RowOp, policy: string): void {
    this.#owed.owe(policy, () => this.runner.run(op, (answer) => (answer instanceof Failure ? this.owe(op, policy) : undefined)));
  }

  /** owing is how many refunds wait for the store (tests and diagnostics). */
  get owing(): number {
    return this.#owed.owing;
  }
}
