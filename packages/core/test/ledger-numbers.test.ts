/**
 * A booking ledger as numbers (src/store/ledger-numbers.ts), the form PostgresStore and SqliteStore keep
 * one in: any ledger reads back exactly (-0, ±Infinity and fractions in its states, entries with and
 * without an id), and the entry whose id is the kept one's comes back as that very object.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Ledger } from '../src/memory/memory-ledger.js';
import { type StoredEntry, ledgerFrom, ledgerNumbers } from '../src/store/ledger-numbers.js';

const number = fc.oneof(fc.double(), fc.constantFrom(-0, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY), fc.integer());
const state = fc.option(fc.array(number, { maxLength: 6 }), { nil: undefined });
const entry: fc.Arbitrary<StoredEntry> = fc.record({ at: number, cost: fc.integer({ min: 1, max: 100 }), id: fc.nat() }, { requiredKeys: ['at', 'cost'] });
const ledger: fc.Arbitrary<Ledger> = fc.record({ base: state, head: state, entries: fc.array(entry, { maxLength: 5 }), floor: number });

describe('ledger numbers', () => {
  it('read back every ledger exactly', () => {
    fc.assert(
      fc.property(ledger, (l) => {
        expect(ledgerFrom(ledgerNumbers(l))).toEqual(l);
        expect(ledgerFrom(Float64Array.from(ledgerNumbers(l)))).toEqual(l);
      }),
    );
  });

  it('answer the kept entry itself for its id', () => {
    fc.assert(
      fc.property(ledger, fc.nat(4), (l, pick) => {
        const kept = l.entries[pick] as StoredEntry | undefined;
        if (kept?.id === undefined || l.entries.some((e, i) => i !== pick && (e as StoredEntry).id === kept.id)) return;
        const read = ledgerFrom(ledgerNumbers(l), kept);
        expect(read.entries[pick]).toBe(kept);
      }),
    );
  });
});
