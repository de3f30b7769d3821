/**
 * DurableObjectStore shares limits across every isolate of a Cloudflare Worker, in every location
 * (`store: new DurableObjectStore({ namespace: env.LIMITS })`; its limiters answer with promises). It is
 * core's row-store kit (RowStore) over one primitive: send a key's ops to its object, which applies them
 * to its rows in order (runner.ts, object.ts). One object per key: a hot key is never spread (each object
 * would hold the whole limit) and slows no other; a composite is one op, all or nothing. Composites,
 * bans, bookings, owed refunds, names and the failure policy ('fallback', default: this isolate's memory,
 * the whole policy; 'open'; 'closed') are the kit's. The object's clock decides (`time: 'client'`: the
 * limiter's). Refused by name: ConcurrencyLimiter (a lease whose isolate dies would stay held: nothing
 * gives it an expiry that outlives its isolate) and algorithms the object has no core step for.
 */
import type { Algorithm, Policy } from '@ratekeeper/core';
import { type FailurePolicy, RowStore } from '@ratekeeper/core/store';
import { type FailureInfo, causeOf, overloaded } from './failure-cause.js';
import { stepOf } from './key-rows.js';
import { type DurableObjectStoreOptions, type TimeSource, resolveOptions } from './options.js';
import { ObjectRunner } from './runner.js';

const LEASES =
  'concurrency leases are not supported: a lease taken by an isolate that dies would stay held in its object, with no expiry to end it; use a rate limit here, or RedisStore (its leases expire)';

/** check refuses an algorithm that is not core's own step for its policy (a sliding log's is made per limit: by name). */
function check(algorithm: Algorithm<Policy>, policy: Policy): string | undefined {
  const step = policy.algorithm === 'concurrency' ? algorithm : stepOf(policy);
  if (step !== undefined && (step === algorithm || policy.algorithm === 'sliding-log')) return undefined;
  return `the object runs core's own steps only; no step for algorithm ${JSON.stringify(algorithm.name)}`;
}

export class DurableObjectStore extends RowStore<'async', FailureInfo> {
  readonly prefix: string;
  readonly time: TimeSource;
  readonly timeoutMs: number;
  readonly onFailure: FailurePolicy;
  readonly #runner: ObjectRunner;

  constructor(options: DurableObjectStoreOptions) {
    const o = resolveOptions(options);
    const runner = new ObjectRunner({ ...o, send: (name, batch) => o.namespace.get(o.namespace.idFromName(name) as never).run(batch) });
    super({
      owner: 'DurableObjectStore',
      server: 'the Durable Object',
      runner,
      onFailure: o.onFailure,
      fallbackStore: o.fallbackStore,
      fallbackDivisor: () => 1,
      leaseTtlMs: undefined,
      leaseRefusal: LEASES,
      check,
      failureWarning: o.failureWarning,
      causeOf: (info) => causeOf(info, o.timeoutMs),
      reportAs: (info) => ({ ...info, reason: overloaded(info.error) ? 'overloaded' : info.reason }) as FailureInfo,
    });
    this.prefix = o.prefix;
    this.time = o.time;
    this.timeoutMs = o.timeoutMs;
    this.onFailure = o.onFailure;
    this.#runner = runner;
  }

  /** batching counts the RPCs sent and the calls they carried: calls ÷ rpcs is the mean batch size. */
  get batching(): { readonly rpcs: number; readonly calls: number } {
    return { rpcs: this.#runner.rpcs, calls: this.#runner.calls };
  }
}
