/**
 * observeRedisStore publishes a RedisStore's own counters as OpenTelemetry observable counters, read
 * when the SDK collects (nothing is done per decision): the batches of more than one call it sent, the
 * decisions they carried, the decisions its deny cache answered without a round trip, and lease mode's
 * takes (refills), the units they granted and the units given back. The store is duck-typed
 * (`batching`, `denyCacheHits` and, when it has it, `leasing`, as @ratekeeper/redis's RedisStore has),
 * so this package does not depend on the Redis package; a store from before lease mode (no `leasing`)
 * publishes no lease points. Returns a function that stops observing.
 */
import { type BatchObservableResult, type MeterProvider, metrics } from '@opentelemetry/api';
import { describeValue, refuseUnknown } from '@ratekeeper/core/store';
import {
  ATTR_STORE,
  METRIC_REDIS_BATCHED,
  METRIC_REDIS_BATCHES,
  METRIC_REDIS_DENY_CACHE_HITS,
  METRIC_REDIS_LEASE_REFILLS,
  METRIC_REDIS_LEASE_RETURNED,
  METRIC_REDIS_LEASE_UNITS,
  SCOPE_NAME,
} from './names.js';

/** The counters a RedisStore exposes. */
export interface ObservableStore {
  readonly batching: { readonly batches: number; readonly calls: number };
  readonly denyCacheHits: number;
  /** Lease mode's counters; absent on a RedisStore from before lease mode. */
  readonly leasing?: { readonly refills: number; readonly units: number; readonly returned: number };
}

export interface ObserveRedisStoreOptions {
  /** Where the instruments come from (default: the global MeterProvider). */
  readonly meterProvider?: MeterProvider;
  /** The `ratekeeper.store` attribute, to tell several stores apart (default 'redis'). */
  readonly name?: string;
}

const OWNER = 'observeRedisStore';

export function observeRedisStore(store: ObservableStore, options: ObserveRedisStoreOptions = {}): () => void {
  const s = store as Partial<ObservableStore> | null;
  if (typeof s !== 'object' || s === null || typeof s.batching !== 'object' || typeof s.denyCacheHits !== 'number') {
    throw new TypeError(`${OWNER}: store must be a RedisStore (with batching and denyCacheHits), got ${describeValue(store)}`);
  }
  if (typeof options !== 'object' || options === null) throw new TypeError(`${OWNER}: options must be an object, got ${describeValue(options)}`);
  refuseUnknown(OWNER, options, new Set(['meterProvider', 'name']));
  const name = options.name ?? 'redis';
  if (typeof name !== 'string' || name.length === 0) throw new TypeError(`${OWNER}: name must be a non-empty string, got ${describeValue(name)}`);
  const provider = options.meterProvider ?? metrics.getMeterProvider();
  const meter = provider.getMeter(SCOPE_NAME);
  const attributes = Object.freeze({ [ATTR_STORE]: name });
  const batches = meter.createObservableCounter(METRIC_REDIS_BATCHES, { unit: '{batch}', description: 'Batches of more than one decision a RedisStore sent.' });
  const batched = meter.createObservableCounter(METRIC_REDIS_BATCHED, { unit: '{decision}', description: 'Decisions carried by those batches.' });
  const hits = meter.createObservableCounter(METRIC_REDIS_DENY_CACHE_HITS, { unit: '{decision}', description: 'Decisions answered from the deny cache.' });
  const refills = meter.createObservableCounter(METRIC_REDIS_LEASE_REFILLS, { unit: '{refill}', description: 'Lease takes Redis answered.' });
  const units = meter.createObservableCounter(METRIC_REDIS_LEASE_UNITS, { unit: '{unit}', description: 'Units lease takes granted.' });
  const returned = meter.createObservableCounter(METRIC_REDIS_LEASE_RETURNED, { unit: '{unit}', description: 'Leased units given back unspent.' });
  const instruments = [batches, batched, hits, refills, units, returned];
  const observe = (result: BatchObservableResult) => {
    const { batches: b, calls } = store.batching;
    result.observe(batches, b, attributes);
    result.observe(batched, calls, attributes);
    result.observe(hits, store.denyCacheHits, attributes);
    const leasing = store.leasing;
    if (typeof leasing !== 'object' || leasing === null) return;
    result.observe(refills, leasing.refills, attributes);
    result.observe(units, leasing.units, attributes);
    result.observe(returned, leasing.returned, attributes);
  };
  meter.addBatchObservableCallback(observe, instruments);
  return () => meter.removeBatchObservableCallback(observe, instruments);
}
