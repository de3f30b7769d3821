// The sizing arithmetic (./_plan.mjs) against its definitions, on random costs, targets and headrooms.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mix, plan } from './_plan.mjs';

const cpu = fc.double({ min: 0.01, max: 1000, noNaN: true });
const cost = fc.record({ redisCpuUs: cpu, clientCpuUs: cpu, roundTrips: fc.double({ min: 0, max: 3, noNaN: true }) });
const target = fc.integer({ min: 1, max: 1e9 });
const headroom = fc.double({ min: 0.01, max: 1, noNaN: true });
const share = fc.double({ min: 0, max: 1, noNaN: true });

describe('the sizing plan', () => {
  it('needs the fewest shards that carry the target at the planned utilisation', () => {
    fc.assert(
      fc.property(cost, target, headroom, (c, t, h) => {
        const { shards } = plan(c, t, h);
        const carried = (n) => (n * 1e6 * h) / c.redisCpuUs;
        expect(carried(shards)).toBeGreaterThanOrEqual(t * (1 - 1e-12));
        expect(carried(shards - 1)).toBeLessThan(t * (1 + 1e-12));
      }),
    );
  });

  it('gives one key at most one shard at the planned utilisation', () => {
    fc.assert(
      fc.property(cost, target, headroom, (c, t, h) => {
        const p = plan(c, t, h);
        expect(p.keyCeiling).toBeCloseTo(p.perShard * h, 6);
        expect(p.perShard * c.redisCpuUs).toBeCloseTo(1e6, 6);
      }),
    );
  });

  it('costs a mix the share-weighted mean: all cold at 0, all hot at 1, in between otherwise', () => {
    fc.assert(
      fc.property(cost, cost, share, (hot, cold, s) => {
        expect(mix(hot, 0, cold)).toEqual({ redisCpuUs: cold.redisCpuUs, clientCpuUs: cold.clientCpuUs, roundTrips: cold.roundTrips });
        expect(mix(hot, 1, cold)).toEqual({ redisCpuUs: hot.redisCpuUs, clientCpuUs: hot.clientCpuUs, roundTrips: hot.roundTrips });
        const m = mix(hot, s, cold);
        for (const name of ['redisCpuUs', 'clientCpuUs', 'roundTrips']) {
          expect(m[name]).toBeGreaterThanOrEqual(Math.min(hot[name], cold[name]) * (1 - 1e-12));
          expect(m[name]).toBeLessThanOrEqual(Math.max(hot[name], cold[name]) * (1 + 1e-12));
        }
      }),
    );
  });
});
