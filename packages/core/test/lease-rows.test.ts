/**
 * Lease rows (src/store/leases/lease-rows.ts), the state the SQL stores keep a concurrency limit's
 * leases in: random histories of acquires, releases and renewals by two holders, on a clock that jumps
 * both ways, decided on the encoded state and on a plain list of leases side by side. After every step
 * the number of live leases (what core's concurrency step decides on), the state's expiry and the
 * units each call answered agree; an acquire adds exactly its cost, a release never frees another
 * holder's unit, a renewal never revives an expired lease, and a state with no lease left is empty.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type LeaseWork, leaseExpiry, leaseView, releaseLeases, renewLeases, takeLeases } from '../src/store/leases/lease-rows.js';

const TTL = 1000;

interface Modelled {
  readonly holder: number;
  readonly seq: number;
  readonly expiresAt: number;
}

type Step = { kind: 'take'; holder: number; cost: number } | { kind: 'release' | 'renew'; holder: number; pick: number[] } | { kind: 'move'; dt: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('take' as const), holder: fc.constantFrom(1, 2), cost: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constantFrom('release' as const, 'renew' as const), holder: fc.constantFrom(1, 2), pick: fc.array(fc.nat(12), { maxLength: 4 }) }),
  fc.record({ kind: fc.constant('move' as const), dt: fc.integer({ min: -TTL, max: 2 * TTL }) }),
);

describe('lease rows', () => {
  it('decide as a plain list of leases does, step by step', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        let state: Float64Array | undefined;
        let model: Modelled[] = [];
        let at = 1_000_000;
        const seqs = new Map<number, number>([
          [1, 0],
          [2, 0],
        ]);
        const work = (holder: number, picked: readonly number[] = []): LeaseWork => ({
          holder,
          ttlMs: TTL,
          seqs: picked,
          nextSeq: () => {
            const seq = seqs.get(holder) as number;
            seqs.set(holder, seq + 1);
            return seq;
          },
          taken: [],
        });
        const live = (t: number) => model.filter((lease) => lease.expiresAt > t);
        for (const s of steps) {
          const before = live(at).length;
          if (s.kind === 'move') at += s.dt;
          else if (s.kind === 'take') {
            const w = work(s.holder);
            state = takeLeases(state, w, at, s.cost).state;
            expect(w.taken).toHaveLength(s.cost);
            model = [...live(at), ...w.taken.map((seq) => ({ holder: s.holder, seq, expiresAt: at + TTL }))];
            expect(live(at).length).toBe(before + s.cost);
          } else if (s.kind === 'release') {
            const next = releaseLeases(state, work(s.holder, s.pick), at);
            const mine = (lease: Modelled) => lease.holder === s.holder && s.pick.includes(lease.seq);
            expect(next === undefined, 'no change exactly when none of the units named is there').toBe(!model.some(mine));
            if (next !== undefined) {
              state = next.state;
              model = live(at).filter((lease) => !mine(lease));
            }
            const others = (t: number) => live(t).filter((lease) => lease.holder !== s.holder).length;
            expect(others(at)).toBe(model.filter((lease) => lease.holder !== s.holder && lease.expiresAt > at).length);
          } else {
            const w = work(s.holder, s.pick);
            state = renewLeases(state, w, at).state;
            const mine = (lease: Modelled) => lease.holder === s.holder && s.pick.includes(lease.seq);
            expect([...w.taken].sort()).toEqual(
              live(at)
                .filter(mine)
                .map((lease) => lease.seq)
                .sort(),
            );
            model = live(at).map((lease) => (mine(lease) ? { ...lease, expiresAt: at + TTL } : lease));
            expect(live(at).length, 'a renewal revives nothing').toBe(before);
          }
          expect(leaseView(state, at)?.[0] ?? 0).toBe(live(at).length);
          expect(leaseView(state, at + TTL)?.[0] ?? 0).toBe(live(at + TTL).length);
          expect(leaseExpiry(state)).toBe(Math.max(0, ...model.map((lease) => lease.expiresAt)));
          expect(state === undefined).toBe(model.length === 0);
        }
      }),
      { numRuns: 300 },
    );
  });
});
