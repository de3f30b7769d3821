/**
 * PostgresLeases: a concurrency limit's binding on a PostgresStore (core's ConcurrencyLimiter). Each
 * unit in flight is a lease in its key's row ([expiresAt, holder, seq]: core's lease rows), decided like
 * every call, as an op of the next batch on the locked row, by core's concurrency step on the number
 * of leases still live (../rows/apply.ts); composites take a lease beside rate limits all or nothing
 * (./composite.ts). What this process holds, renews and gives back is core's LeaseHolder: leases expire
 * `leaseTtlMs` after they were taken or last renewed, on the store's clock (the database's by default),
 * so a crashed process's units come back by time.
 */
import type { Algorithm, ConcurrencyPolicy, Policy } from '@ratekeeper/core';
import { Failure, type LeaseCall, LeaseHolder, type LeaseWork } from '@ratekeeper/core/store';
import type { Answers } from '../wire/transaction.js';
import type { Op, Part } from '../rows/apply.js';
import { type Backend, fallbackOf } from './backend.js';
import { nameHead, rowKey } from '../rows/keys.js';

const OPS: Readonly<Record<LeaseCall, Pick<Op, 'kind' | 'commit'>>> = {
  consume: { kind: 'decide', commit: true },
  peek: { kind: 'decide', commit: false },
  release: { kind: 'refund', commit: true },
  renew: { kind: 'renew', commit: true },
  reset: { kind: 'reset', commit: true },
};

export class PostgresLeases extends LeaseHolder {
  /** @internal The store's shared state, for this package's files. */
  readonly backend: Backend;
  readonly #head: string;

  /** @internal Made by the store's bind (ConcurrencyLimiter calls it). */
  constructor(backend: Backend, algorithm: Algorithm<ConcurrencyPolicy>, policy: ConcurrencyPolicy, ttlMs: number) {
    const head = nameHead(policy.name);
    super({
      algorithm,
      policy,
      ttlMs,
      fallback: fallbackOf(backend, algorithm as unknown as Algorithm<Policy>, policy).binding,
      onFailure: backend.onFailure,
      report: (info) => backend.report(info),
      run: (call, key, now, cost, work) =>
        new Promise((resolve) => {
          const part: Part = { algorithm: algorithm as unknown as Algorithm<Policy>, policy, row: rowKey(head, key), lease: work };
          backend.batcher.add({ ...OPS[call], parts: [part], now, cost }, (answer) => resolve(answer instanceof Failure ? answer : (answer as Answers[number])));
        }),
    });
    this.backend = backend;
    this.#head = head;
  }

  /**
   * part is this policy's share of a composite's call on `key`, with fresh lease work.
   * @internal
   */
  part(key: string): Part & { readonly lease: LeaseWork } {
    return { algorithm: this.algorithm as unknown as Algorithm<Policy>, policy: this.policy, row: rowKey(this.#head, key), lease: this.work() };
  }
}
