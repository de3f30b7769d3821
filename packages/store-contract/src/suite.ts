/**
 * storeContractSuite registers, under one vitest describe, every clause a store must keep (see the
 * check files), one `it` per clause: the store is made once before them and closed after. A store's
 * test file is three lines:
 *
 *   import { storeContractSuite } from '@ratekeeper/store-contract';
 *   import { MemoryStore } from '@ratekeeper/core';
 *   storeContractSuite('MemoryStore', async () => ({ store: new MemoryStore() }));
 *
 * `storeChecks` answers the same clauses as plain functions, for a test that runs them by hand (the
 * package's own test shows that broken stores fail them).
 */
import type { Store } from '@ratekeeper/core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { banChecks, banRefusals } from './ban-checks.js';
import { type Check, contextFor } from './check.js';
import { compositeChecks, compositeRefusals } from './composite-checks.js';
import { concurrencyChecks, concurrencyRefusals } from './concurrency-checks.js';
import { type StoreContractOptions, resolveOptions } from './options.js';
import { rateChecks } from './rate-checks.js';
import { refundChecks, refundRefusals } from './refund-checks.js';
import { reserveChecks, reserveRefusals } from './reserve-checks.js';

export interface Made {
  readonly store: Store;
  readonly close?: () => Promise<void>;
}

/** storeChecks lists the clauses for a store with these options: the rate ones, then per capability its checks or its refusal. */
export function storeChecks(options: StoreContractOptions = {}): readonly Check[] {
  const { claims } = resolveOptions(options);
  return [
    ...rateChecks(),
    ...(claims.refund ? refundChecks() : refundRefusals()),
    ...(claims.composite ? compositeChecks() : compositeRefusals()),
    ...(claims.reserve ? reserveChecks(claims.composite) : reserveRefusals()),
    ...(claims.bans ? banChecks() : banRefusals()),
    ...(claims.concurrency ? concurrencyChecks(claims.composite) : concurrencyRefusals()),
  ];
}

export function storeContractSuite(name: string, make: () => Promise<Made>, options: StoreContractOptions = {}): void {
  const resolved = resolveOptions(options);
  const checks = storeChecks(options);
  describe(`store contract: ${name}`, () => {
    let made: Made | undefined;
    beforeAll(async () => {
      made = await make();
    }, resolved.timeoutMs);
    afterAll(async () => {
      await made?.close?.();
    }, resolved.timeoutMs);
    for (const c of checks) {
      it(
        c.title,
        async () => {
          if (made === undefined) throw new Error(`store contract: ${name} was not made`);
          await c.run(contextFor(made.store, resolved.clock));
        },
        resolved.timeoutMs,
      );
    }
  });
}
