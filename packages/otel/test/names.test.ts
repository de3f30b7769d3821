/**
 * The published telemetry names are frozen: the instruments an SDK sees (name, unit, type), the
 * attribute keys on every point, and the exported constants. Changing any of them breaks dashboards
 * and alerts, so it must fail here first.
 */
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { DECISION_OUTCOMES, prepareRateLimit } from '@ratekeeper/core/adapter';
import { describe, expect, it } from 'vitest';
import * as otel from '../src/index.js';
import { otelTelemetry } from '../src/index.js';
import { meterProvider } from './support.js';

describe('telemetry names', () => {
  it('exports exactly these names and values', () => {
    expect(Object.keys(otel).sort()).toEqual(
      [
        'ATTR_ALGORITHM',
        'ATTR_OUTCOME',
        'ATTR_POLICY',
        'ATTR_REMAINING',
        'ATTR_RETRY_AFTER_MS',
        'ATTR_STORE',
        'MAX_POLICIES',
        'METRIC_DECISIONS',
        'METRIC_REDIS_BATCHED',
        'METRIC_REDIS_BATCHES',
        'METRIC_REDIS_DENY_CACHE_HITS',
        'METRIC_REDIS_LEASE_REFILLS',
        'METRIC_REDIS_LEASE_RETURNED',
        'METRIC_REDIS_LEASE_UNITS',
        'METRIC_STORE_DURATION',
        'SCOPE_NAME',
        'observeRedisStore',
        'otelTelemetry',
      ].sort(),
    );
    expect({ ...otel, otelTelemetry: undefined, observeRedisStore: undefined }).toEqual({
      ATTR_ALGORITHM: 'ratekeeper.algorithm',
      ATTR_OUTCOME: 'ratekeeper.outcome',
      ATTR_POLICY: 'ratekeeper.policy',
      ATTR_REMAINING: 'ratekeeper.remaining',
      ATTR_RETRY_AFTER_MS: 'ratekeeper.retry_after_ms',
      ATTR_STORE: 'ratekeeper.store',
      MAX_POLICIES: 256,
      METRIC_DECISIONS: 'ratekeeper.decisions',
      METRIC_REDIS_BATCHED: 'ratekeeper.redis.batched_decisions',
      METRIC_REDIS_BATCHES: 'ratekeeper.redis.batches',
      METRIC_REDIS_DENY_CACHE_HITS: 'ratekeeper.redis.deny_cache.hits',
      METRIC_REDIS_LEASE_REFILLS: 'ratekeeper.redis.lease.refills',
      METRIC_REDIS_LEASE_RETURNED: 'ratekeeper.redis.lease.returned_units',
      METRIC_REDIS_LEASE_UNITS: 'ratekeeper.redis.lease.units',
      METRIC_STORE_DURATION: 'ratekeeper.store.duration',
      SCOPE_NAME: '@ratekeeper/otel',
      otelTelemetry: undefined,
      observeRedisStore: undefined,
    });
    expect(DECISION_OUTCOMES).toEqual(['allowed', 'limited', 'shadow_limited', 'failure_open', 'failure_closed', 'fallback_allowed', 'fallback_limited']);
  });

  it('publishes an observable decisions counter and a store-duration histogram with these units and attribute keys', async () => {
    const { provider, read } = meterProvider();
    const telemetry = otelTelemetry({ meterProvider: provider });
    const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock: new ManualClock(0), name: 'api' });
    telemetry.decided(limiter.consume('k'), 'allowed', undefined);
    telemetry.decided(limiter.consume('k'), 'limited', 2.5);
    const rows = await read();
    expect(rows.map(({ name, unit, type }) => ({ name, unit, type }))).toEqual([
      { name: 'ratekeeper.decisions', unit: '{decision}', type: 'monotonic SUM' },
      { name: 'ratekeeper.store.duration', unit: 's', type: 'HISTOGRAM' },
    ]);
    for (const row of rows) for (const p of row.points) expect(Object.keys(p.attributes).sort()).toEqual(['ratekeeper.algorithm', 'ratekeeper.outcome', 'ratekeeper.policy']);
    expect(rows[0]?.points.map((p) => [p.attributes['ratekeeper.policy'], p.attributes['ratekeeper.algorithm'], p.attributes['ratekeeper.outcome'], p.value])).toEqual([
      ['api', 'token-bucket', 'allowed', 1],
      ['api', 'token-bucket', 'limited', 1],
    ]);
    const histogram = rows[1]?.points[0]?.value as { count: number; sum: number };
    expect([histogram.count, histogram.sum]).toEqual([1, 0.0025]);
  });

  it('refuses bad options naming the option', () => {
    expect(() => otelTelemetry({ meterprovider: 1 } as never)).toThrow(new TypeError('otelTelemetry: unknown option "meterprovider"'));
    expect(() => otelTelemetry({ meterProvider: {} as never })).toThrow(new TypeError('otelTelemetry: meterProvider must be a MeterProvider, got an object'));
    expect(() => otelTelemetry({ spanAttributes: 'yes' as never })).toThrow(new TypeError('otelTelemetry: spanAttributes must be a boolean, got "yes"'));
    expect(() => prepareRateLimit('rateLimit', { telemetry: {} as never })).toThrow(
      new TypeError('rateLimit: telemetry must be an object with a decided(decision, outcome, storeMs) method, got an object'),
    );
  });

  it('caps the policy label at MAX_POLICIES distinct policies', async () => {
    const { provider, read } = meterProvider();
    const telemetry = otelTelemetry({ meterProvider: provider });
    for (let i = 0; i < otel.MAX_POLICIES + 50; i++) {
      telemetry.decided(new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, name: `p${i}` }).consume('k'), 'allowed', undefined);
    }
    const points = (await read())[0]?.points ?? [];
    expect(points.length).toBe(otel.MAX_POLICIES + 1);
    expect(points.find((p) => p.attributes['ratekeeper.policy'] === 'other')?.value).toBe(50);
  });
});
