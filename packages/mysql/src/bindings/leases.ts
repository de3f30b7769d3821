/**
 * MySqlLeases: a concurrency limit's binding on a MySqlStore (core's ConcurrencyLimiter). Each unit in
 * flight is a lease in its key's row ([expiresAt, holder, seq]: core's lease rows), decided like every
 * call, in the next batch's transaction on the locked row, by core's concurrency step on the number of
 * leases still live (../rows/steps.ts); composites take a lease beside rate limits all or nothing. What this
 * process holds, renews and gives back is core's LeaseHolder: leases expire `leaseTtlMs` after they
 * were taken or last renewed, on the store's clock (the database's by default), so a crashed process's
 * units come back by time; the row's expiry is its latest lease's, so the sweep deletes it after.
 */
import type { Algorithm, ConcurrencyPolicy, Policy } from '@ratekeeper/core';
import { Fallback, type LeaseCall, LeaseHolder } from '@ratekeeper/core/store';
import { type Backend, asFailure } from './binding.js';
import { encodeKey } from '../rows/codec.js';
import type { Kind, Member } from '../rows/steps.js';

const KINDS: Readonly<Record<LeaseCall, Kind>> = { consume: 'consume', peek: 'peek', release: 'refund', renew: 'renew', reset: 'reset' };

export class MySqlLeases extends LeaseHolder {
  /** @internal The store's shared state, for this package's files. */
  readonly backend: Backend;
  readonly leases = true as const;

  /** @internal Made by the store's bind (ConcurrencyLimiter calls it). */
  constructor(backend: Backend, algorithm: Algorithm<ConcurrencyPolicy>, policy: ConcurrencyPolicy, ttlMs: number) {
    super({
      algorithm,
      policy,
      ttlMs,
      fallback: new Fallback(backend.fallbackStore, algorithm as unknown as Algorithm<Policy>, policy, () => backend.fallbackDivisor()).binding,
      onFailure: backend.onFailure,
      report: (info) => backend.report(info),
      run: (call, key, now, cost, work) =>
        new Promise((resolve) => {
          backend.batcher.submit({
            kind: KINDS[call],
            members: [this as unknown as Member],
            key: encodeKey(key),
            now,
            cost,
            leases: [work],
            deliver: (decisions, ended) => resolve(decisions ?? asFailure(ended)),
          });
        }),
    });
    this.backend = backend;
  }
}
