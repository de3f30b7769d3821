/**
 * storeContractSuite registers, under one vitest describe, every clause a store must keep, one `it`
 * per clause: the store is made once before them and closed after. What a store passes is the gate a
 * new store must pass:
 *
 * - per algorithm, the single-policy clauses (clauses/rate-checks.ts), and per capability it claims,
 *   that capability's clauses, or, unclaimed, its refusal by name (clauses/*-checks.ts; charge, usage
 *   and block, rate-limiter-flexible's verbs: clauses/verb-checks.ts, a block and a charge also seen
 *   through a second instance of the store on the same backend, the `another` option);
 * - the differential against the reference model, core's pure steps on a MemoryStore, over random
 *   histories of every algorithm and claimed capability (differential/differential-checks.ts);
 * - the burst: several processes at once on one key admit exactly the limit (processes/burst-checks.ts).
 *
 * A store that shares state between processes also runs processes/booking-checks.ts and
 * processes/lease-checks.ts for the capabilities it claims. A store's test file, at its smallest:
 *
 *   storeContractSuite('MemoryStore', async () => ({ store: new MemoryStore() }), {
 *     differential: { skip: 'the memory store is the reference model' },
 *     burst: { skip: 'a store of one process' },
 *   });
 *
 * `storeChecks` answers the same clauses as plain functions, for a test that runs them by hand (the
 * package's own test shows that broken stores fail them).
 */
import type { Store } from '@ratekeeper/core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { type Check, contextFor, skipped } from './check.js';
import { banChecks, banRefusals } from './clauses/ban-checks.js';
import { compositeChecks, compositeRefusals } from './clauses/composite-checks.js';
import { concurrencyChecks, concurrencyRefusals } from './clauses/concurrency-checks.js';
import { rateChecks } from './clauses/rate-checks.js';
import { refundChecks, refundRefusals } from './clauses/refund-checks.js';
import { reserveChecks, reserveRefusals } from './clauses/reserve-checks.js';
import { blockChecks, blockRefusals, chargeChecks, chargeRefusals } from './clauses/verb-checks.js';
import { differentialChecks } from './differential/differential-checks.js';
import { type StoreContractOptions, resolveOptions } from './options.js';
import { burstChecks } from './processes/burst-checks.js';

export interface Made {
  readonly store: Store;
  readonly close?: () => Promise<void>;
}

/**
 * storeChecks lists the clauses for a store with these options: the rate ones, per capability its
 * checks or its refusal, then the differential and the burst (or the reason each is skipped).
 */
export function storeChecks<D extends string, B extends string>(options: StoreContractOptions<D, B>): readonly Check[] {
  const { claims } = resolveOptions(options);
  const { differential, burst } = options;
  return [
    ...rateChecks(),
    ...(claims.refund ? refundChecks() : refundRefusals()),
    ...(claims.composite ? compositeChecks() : compositeRefusals()),
    ...(claims.reserve ? reserveChecks(claims.composite) : reserveRefusals()),
    ...(claims.bans ? banChecks() : banRefusals()),
    ...(claims.concurrency ? concurrencyChecks(claims.composite) : concurrencyRefusals()),
    ...(claims.charge ? chargeChecks() : chargeRefusals()),
    ...(claims.bans ? (claims.block ? blockChecks(options.another) : blockRefusals()) : []),
    ...('skip' in differential ? [skipped('differential against the reference model', differential.skip)] : differentialChecks(differential, claims)),
    ...('skip' in burst ? [skipped('burst: exactly the limit from several processes on one key', burst.skip)] : burstChecks(burst, claims)),
  ];
}

export function storeContractSuite<D extends string, B extends string>(name: string, make: () => Promise<Made>, options: StoreContractOptions<D, B>): void {
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
      if (c.skipped !== undefined) {
        it.skip(`${c.title} (skipped: ${c.skipped})`, () => {});
        continue;
      }
      it(
        c.title,
        async () => {
          if (made === undefined) throw new Error(`store contract: ${name} was not made`);
          await c.run(contextFor(made.store, resolved.clock));
        },
        c.timeoutMs ?? resolved.timeoutMs,
      );
    }
  });
}
