/**
 * Construction-time validation: every bad option throws a TypeError (wrong type) or a RangeError (a
 * number out of range) naming RedisStore, the option and the value; nothing is coerced to a default
 * and the caller's object is never touched.
 */
import { MemoryStore } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import { RedisStore } from './redis-store.js';

const client = { call: () => Promise.resolve(null) };

describe('RedisStore options', () => {
  it.each([
    [{ client: undefined }, TypeError, 'RedisStore: client must be an ioredis client (with call()) or a node-redis client (with sendCommand()), got undefined'],
    [{ client: {} }, TypeError, 'RedisStore: client must be an ioredis client (with call()) or a node-redis client (with sendCommand()), got an object'],
    [{ client, timeoutMs: 0 }, RangeError, 'RedisStore: timeoutMs must be an integer from 1 to 60000, got 0'],
    [{ client, timeoutMs: Number.NaN }, RangeError, 'RedisStore: timeoutMs must be an integer from 1 to 60000, got NaN'],
    [{ client, timeoutMs: 2.5 }, RangeError, 'RedisStore: timeoutMs must be an integer from 1 to 60000, got 2.5'],
    [{ client, timeoutMs: '50' }, TypeError, 'RedisStore: timeoutMs must be an integer from 1 to 60000, got "50"'],
    [{ client, probeIntervalMs: -1 }, RangeError, 'RedisStore: probeIntervalMs must be an integer from 0 to 60000, got -1'],
    [{ client, onFailure: 'ignore' }, TypeError, "RedisStore: onFailure must be one of 'fallback', 'open', 'closed', got \"ignore\""],
    [{ client, time: 'local' }, TypeError, "RedisStore: time must be one of 'server', 'client', got \"local\""],
    [{ client, prefix: 'a{b}:' }, TypeError, 'RedisStore: prefix must be a string of at most 64 characters without { or }, got "a{b}:"'],
    [{ client, prefix: 7 }, RangeError, 'RedisStore: prefix must be a string of at most 64 characters without { or }, got 7'],
    [{ client, batch: 'yes' }, TypeError, 'RedisStore: batch must be a boolean, got "yes"'],
    [{ client, denyCache: 0 }, RangeError, 'RedisStore: denyCache must be a boolean, got 0'],
    [{ client, maxBatchSize: 1 }, RangeError, 'RedisStore: maxBatchSize must be an integer from 2 to 1000, got 1'],
    [{ client, maxBatchSize: 64.5 }, RangeError, 'RedisStore: maxBatchSize must be an integer from 2 to 1000, got 64.5'],
    [{ client, onfailure: 'closed' }, TypeError, 'RedisStore: unknown option "onfailure"'],
    [{ client, timeout: 100 }, TypeError, 'RedisStore: unknown option "timeout"'],
    [{ client, fallbackDivisor: 0 }, RangeError, "RedisStore: fallbackDivisor must be 'peers' or an integer from 1 to 1000000, got 0"],
    [{ client, fallbackDivisor: 2.5 }, RangeError, "RedisStore: fallbackDivisor must be 'peers' or an integer from 1 to 1000000, got 2.5"],
    [{ client, fallbackDivisor: '8' }, TypeError, 'RedisStore: fallbackDivisor must be \'peers\' or an integer from 1 to 1000000, got "8"'],
    [{ client, fallbackStore: new Map() }, TypeError, 'RedisStore: fallbackStore must be a synchronous store with consumeAll (such as a MemoryStore), got an object'],
  ])('rejects %o', (options, type, message) => {
    const make = () => new RedisStore(options as never);
    expect(make).toThrow(type);
    expect(make).toThrow(message);
  });

  it('rejects a missing options object', () => {
    expect(() => new RedisStore(undefined as never)).toThrow('RedisStore: options must be an object with a client, got undefined');
  });

  it('fills in the documented defaults and leaves the options object as it was', () => {
    const options = Object.freeze({ client });
    const store = new RedisStore(options);
    expect([store.mode, store.prefix, store.time, store.timeoutMs, store.onFailure]).toEqual(['async', 'rk:', 'server', 1000, 'fallback']);
    expect(store.peers).toBe(1);
    expect([store.batching, store.denyCacheHits]).toEqual([{ batches: 0, calls: 0 }, 0]);
  });

  it('accepts a node-redis-shaped client, a cluster-shaped one, and a MemoryStore fallback', () => {
    expect(() => new RedisStore({ client: { sendCommand: () => Promise.resolve(null) } })).not.toThrow();
    const cluster = { sendCommand: () => Promise.resolve(null), masters: [] };
    expect(() => new RedisStore({ client: cluster, fallbackStore: new MemoryStore({ maxKeys: 10 }) })).not.toThrow();
  });
});
