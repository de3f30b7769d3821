/**
 * observeRedisStore: a RedisStore's batching, deny-cache and lease counters read by the SDK at collection,
 * under frozen names, attributed by store name; stopping stops the reading; bad arguments are refused.
 */
import { RedisStore } from '@ratekeeper/redis';
import { describe, expect, it } from 'vitest';
import { type ObservableStore, observeRedisStore } from '../src/index.js';
import { meterProvider } from './support.js';

describe('observeRedisStore', () => {
  it('publishes the store counters as they stand at each collection', async () => {
    const { provider, read } = meterProvider();
    const store = { batching: { batches: 3, calls: 150 }, denyCacheHits: 7, leasing: { refills: 4, units: 400, returned: 30 } };
    const stop = observeRedisStore(store, { meterProvider: provider, name: 'sessions' });
    const rows = async () => (await read()).map((r) => [r.name, r.unit, r.type, r.points.map((p) => [p.attributes['ratekeeper.store'], p.value])]);
    expect(await rows()).toEqual([
      ['ratekeeper.redis.batches', '{batch}', 'monotonic SUM', [['sessions', 3]]],
      ['ratekeeper.redis.batched_decisions', '{decision}', 'monotonic SUM', [['sessions', 150]]],
      ['ratekeeper.redis.deny_cache.hits', '{decision}', 'monotonic SUM', [['sessions', 7]]],
      ['ratekeeper.redis.lease.refills', '{refill}', 'monotonic SUM', [['sessions', 4]]],
      ['ratekeeper.redis.lease.units', '{unit}', 'monotonic SUM', [['sessions', 400]]],
      ['ratekeeper.redis.lease.returned_units', '{unit}', 'monotonic SUM', [['sessions', 30]]],
    ]);
    store.batching = { batches: 4, calls: 214 };
    store.denyCacheHits = 9;
    store.leasing = { refills: 5, units: 450, returned: 31 };
    expect((await rows()).map((r) => (r[3] as unknown[][])[0]?.[1])).toEqual([4, 214, 9, 5, 450, 31]);
    stop();
    store.batching = { batches: 5, calls: 300 };
    // Stopped: the SDK keeps the last totals it read, and reads no new ones.
    expect((await rows()).map((r) => (r[3] as unknown[][])[0]?.[1])).toEqual([4, 214, 9, 5, 450, 31]);
  });

  it('fits a real RedisStore, whose counters start at zero', async () => {
    const real: ObservableStore = new RedisStore({ client: { call: async () => null } });
    const { provider, read } = meterProvider();
    observeRedisStore(real, { meterProvider: provider });
    expect((await read()).map((r) => r.points.map((p) => [p.attributes['ratekeeper.store'], p.value]))).toEqual(Array(6).fill([['redis', 0]]));
  });

  it('fits a RedisStore from before lease mode (no leasing), as otel may be upgraded alone: its three counters, no lease points', async () => {
    const { provider, read } = meterProvider();
    const older = { batching: { batches: 2, calls: 70 }, denyCacheHits: 5 } satisfies ObservableStore;
    observeRedisStore(older, { meterProvider: provider, name: 'old' });
    expect((await read()).flatMap((r) => r.points.map((p) => [r.name, p.value]))).toEqual([
      ['ratekeeper.redis.batches', 2],
      ['ratekeeper.redis.batched_decisions', 70],
      ['ratekeeper.redis.deny_cache.hits', 5],
    ]);
  });

  it('refuses what is not a store and bad options', () => {
    expect(() => observeRedisStore({} as never)).toThrow(new TypeError('observeRedisStore: store must be a RedisStore (with batching and denyCacheHits), got an object'));
    const store = { batching: { batches: 0, calls: 0 }, denyCacheHits: 0, leasing: { refills: 0, units: 0, returned: 0 } };
    expect(() => observeRedisStore(store, { nmae: 'x' } as never)).toThrow(new TypeError('observeRedisStore: unknown option "nmae"'));
    expect(() => observeRedisStore(store, { name: '' })).toThrow(new TypeError('observeRedisStore: name must be a non-empty string, got ""'));
  });
});
