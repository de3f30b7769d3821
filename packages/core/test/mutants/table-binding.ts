/**
 * The common frame of the mutant stores below: a binding that runs the real algorithm step over a
 * table it does not own. Each mutant store plugs in one broken table; the frame itself follows the
 * store contract (decide, and write only when allowed).
 */
import { type Algorithm, type Decision, type Policy, type StepOutput, type StoreBinding } from '../../src/index.js';
import { stepOutput, toDecision } from '../../src/store/index.js';

export interface Table {
  get(key: string): Float64Array | undefined;
  set(key: string, state: Float64Array, ttlMs: number): void;
  delete(key: string): void;
}

export class TableBinding implements StoreBinding<'sync'> {
  readonly #algorithm: Algorithm<Policy>;
  readonly #policy: Policy;
  readonly #table: Table;
  readonly #out: StepOutput;

  constructor(algorithm: Algorithm<Policy>, policy: Policy, table: Table) {
    this.#algorithm = algorithm;
    this.#policy = policy;
    this.#table = table;
    this.#out = stepOutput(algorithm.stateSize);
  }

  consume(key: string, now: number, cost: number): Decision {
    this.allow(key, now, cost);
    return toDecision(this.#out, this.#policy);
  }

  peek(key: string, now: number, cost: number): Decision {
    this.#algorithm.evaluate(this.#policy, this.#table.get(key), 0, now, cost, this.#out);
    return toDecision(this.#out, this.#policy);
  }

  allow(key: string, now: number, cost: number): boolean {
    this.#algorithm.evaluate(this.#policy, this.#table.get(key), 0, now, cost, this.#out);
    if (this.#out.allowed) this.#table.set(key, Float64Array.from(this.#out.next), this.#out.ttlMs);
    return this.#out.allowed;
  }

  reset(key: string): void {
    this.#table.delete(key);
  }
}
