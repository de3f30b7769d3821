/**
 * The lease ledger's contract, over random histories of one process's life with one key's lease (takes
 * asked and answered with any part of what was asked, spends of 1–4 units, time passing, expiry and
 * drains), against a reference that follows every unit with the instant its own take was sent:
 *   - held + asked ≤ k at every step (the N·k under-admission bound);
 *   - a spend succeeds exactly when the lease holds the whole cost, and then the reference has that
 *     many units of takes sent less than ttlMs ago (nothing spent beyond the lease or after expiry);
 *   - the ledger never counts more units unexpired than the reference has;
 *   - granted = spent + returned + held, always (no unit lost or spent twice).
 * Four mutants (test/mutants/lease-ledgers.ts) must each fail the same property.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Ledger, forgetful, greedy, late, overspending } from '../../test/mutants/lease-ledgers.js';
import * as real from './lease-ledger.js';

const TTL = 100;
type Op =
  | { readonly t: 'advance'; readonly ms: number }
  | { readonly t: 'spend'; readonly cost: number }
  | { readonly t: 'ask' }
  | { readonly t: 'receive'; readonly part: number }
  | { readonly t: 'expire' }
  | { readonly t: 'drain' };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ t: fc.constant('advance' as const), ms: fc.constantFrom(0, 1, 7, 40, 99, 100, 250) }),
  fc.record({ t: fc.constant('spend' as const), cost: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ t: fc.constant('spend' as const), cost: fc.constant(1) }),
  fc.constant({ t: 'ask' as const }),
  fc.record({ t: fc.constant('receive' as const), part: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.constant({ t: 'expire' as const }),
  fc.constant({ t: 'drain' as const }),
);

/** Lot: units of one take in the reference, spendable while now < until. */
interface Lot {
  n: number;
  readonly until: number;
}

/** violation runs one history and answers the first broken rule, or undefined. */
function violation(impl: Ledger, k: number, ops: readonly Op[]): string | undefined {
  const l = impl.emptyLedger();
  const lots: Lot[] = [];
  let now = 1_000;
  let granted = 0;
  let spent = 0;
  let returned = 0;
  const live = () => lots.reduce((s, lot) => s + (lot.until > now ? lot.n : 0), 0);
  for (const [i, o] of ops.entries()) {
    if (o.t === 'advance') now += o.ms;
    else if (o.t === 'ask') impl.ask(l, k, now);
    else if (o.t === 'receive' && l.asked > 0) {
      const g = Math.floor(o.part * l.asked);
      lots.push({ n: g, until: l.askedAt + TTL });
      (impl.receive as (l: real.LeaseLedger, g: number, ttl: number, at: number) => void)(l, g, TTL, now);
      granted += g;
    } else if (o.t === 'expire') returned += impl.expire(l, now);
    else if (o.t === 'drain') {
      returned += impl.drain(l);
      lots.length = 0;
    } else if (o.t === 'spend') {
      returned += impl.expire(l, now);
      const before = impl.held(l);
      const ok = impl.spend(l, o.cost);
      if (ok !== before >= o.cost) return `step ${i}: spend ${o.cost} with ${before} held answered ${ok}`;
      if (ok) {
        if (live() < o.cost) return `step ${i} at ${now}: spent ${o.cost} with only ${live()} unexpired units taken`;
        let due = o.cost;
        for (const lot of lots) {
          if (lot.until <= now) continue;
          const take = Math.min(due, lot.n);
          lot.n -= take;
          due -= take;
        }
        spent += o.cost;
      }
    }
    const h = impl.held(l);
    if (l.old < 0 || l.young < 0) return `step ${i}: negative units (${l.old}, ${l.young})`;
    if (h + l.asked > k) return `step ${i}: held ${h} + asked ${l.asked} > k = ${k}`;
    // Expiry is lazy (expire runs before each spend): compare the units the ledger still counts as unexpired.
    const spendable = (l.old > 0 && now < l.oldUntil ? l.old : 0) + (l.young > 0 && now < l.youngUntil ? l.young : 0);
    if (spendable > live()) return `step ${i} at ${now}: holds ${spendable} unexpired, the takes only ${live()}`;
    if (granted !== spent + returned + h) return `step ${i}: granted ${granted} ≠ spent ${spent} + returned ${returned} + held ${h}`;
  }
  return undefined;
}

/** A round trip: a take asked, time passing while it is on the wire, its answer, more time, a spend. */
const roundTrip: fc.Arbitrary<Op[]> = fc
  .tuple(fc.constantFrom(1, 40, 99), fc.double({ min: 0.2, max: 1, noNaN: true }), fc.constantFrom(0, 1, 60, 99, 100))
  .map(([wire, part, after]) => [{ t: 'ask' }, { t: 'advance', ms: wire }, { t: 'receive', part }, { t: 'advance', ms: after }, { t: 'spend', cost: 1 }]);
const histories = fc.tuple(
  fc.integer({ min: 1, max: 12 }),
  fc
    .array(
      fc.oneof(
        op.map((o) => [o]),
        roundTrip,
      ),
      { maxLength: 40 },
    )
    .map((groups) => groups.flat()),
);

describe('lease ledger', () => {
  it('keeps held + asked ≤ k, spends only unexpired units it holds, and accounts for every unit', () => {
    fc.assert(
      fc.property(histories, ([k, ops]) => {
        expect(violation(real, k, ops)).toBeUndefined();
      }),
      { numRuns: 2000 },
    );
  });

  it('a take of k − held answered in full brings the lease to k, never above', () => {
    const l = real.emptyLedger();
    real.receive(l, real.ask(l, 10, 0), 100);
    expect(real.spend(l, 6)).toBe(true);
    expect(real.ask(l, 10, 50)).toBe(6);
    expect(real.ask(l, 10, 50)).toBe(0); // single flight: one take on the wire
    real.receive(l, 6, 100);
    expect([real.held(l), l.old, l.oldUntil, l.young, l.youngUntil]).toEqual([10, 4, 100, 6, 150]);
    expect(real.expire(l, 100)).toBe(4);
    expect([real.held(l), l.old, l.oldUntil]).toEqual([6, 6, 150]);
  });

  for (const [name, mutant] of [
    ['overspending', overspending],
    ['forgetful', forgetful],
    ['greedy', greedy],
    ['late', late],
  ] as const) {
    it(`catches the ${name} mutant`, () => {
      const result = fc.check(
        fc.property(histories, ([k, ops]) => violation(mutant, k, ops) === undefined),
        { numRuns: 2000 },
      );
      expect(result.failed).toBe(true);
    });
  }
});
