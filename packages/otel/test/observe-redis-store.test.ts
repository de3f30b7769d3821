/**
 * observeRedisStore: a RedisStore's batching and deny-cache counters read by the SDK at collection,
 * under frozen names, attributed by store name; stopping stops the reading; bad arguments are refused.
 */
import { RedisStore } from '@ratekeeper/redis';
import { describe, expect, it } from 'vitest';
import { type ObservableStore, observeRedisStore } from '../src/index.js';
import { meterProvider } from './support.js';

describe('observeRedisStore', () => {
  it('publishes the store counters as they stand at each collection', async () => {
    const { provider, read } = meterProvider();
    const store = { batching: { batches: 3, calls: 150 }, denyCacheHits: 7 };
    const stop = observeRedisStore(store, { meterProvider: provider, name: 'sessions' });
    const rows = async () => (await read()).map((r) => [r.name, r.unit, r.type, r.points.map((p) => [p.attributes['ratekeeper.store'], p.value])]);
    expect(await rows()).toEqual([
      ['ratekeeper.redis.batches', '{batch}', 'monotonic SUM', [['sessions', 3]]],
      ['ratekeeper.redis.batched_decisions', '{decision}', 'monotonic SUM', [['sessions', 150]]],
      ['ratekeeper.redis.deny_cache.hits', '{decision}', 'monotonic SUM', [['sessions', 7]]],
    ]);
    store.batching = { batches: 4, calls: 214 };
    store.denyCacheHits = 9;
    expect((await rows()).map((r) => (r[3] as unknown[][])[0]?.[1])).toEqual([4, 214, 9]);
    stop();
    store.batching = { batches: 5, calls: 300 };
    // Stopped: the SDK keeps the last totals it read, and reads no new ones.
    expect((await rows()).map((r) => (r[3] as unknown[][])[0]?.[1])).toEqual([4, 214, 9]);
  });

  it('fits a real RedisStore, whose counters start at zero', async () => {
    const real: ObservableStore = new RedisStore({ client: { call: async () => null } });
    const { provider, read } = meterProvider();
    observeRedisStore(real, { meterProvider: provider });
    expect((await read()).map((r) => r.points.map((p) => [p.attributes['ratekeeper.store'], p.value]))).toEqual([[['redis', 0]], [['redis', 0]], [['redis', 0]]]);
  });

  it('refuses what is not a store and bad options', () => {
    expect(() => observeRedisStore({} as never)).toThrow(new TypeError('observeRedisStore: store must be a RedisStore (with batching and denyCacheHits), got an object'));
    const store = { batching: { batches: 0, calls: 0 }, denyCacheHits: 0 };
    expect(() => observeRedisStore(store, { nmae: 'x' } as never)).toThrow(new TypeError('observeRedisStore: unknown option "nmae"'));
    expect(() => observeRedisStore(store, { name: '' })).toThrow(new TypeError('observeRedisStore: name must be a non-empty string, got ""'));
  });
});
