/**
 * A booking ledger of core's memory store (memory-ledger.ts: the key's state before its first pending
 * booking, the state the bookings leave, each booking's instant, cost and id, and the floor) as plain
 * numbers, for a store that keeps it in a row of its own and runs the memory store's booking code on
 * it (PostgresStore as a float8[], SqliteStore as a BLOB of doubles): exact for every state (-0 and
 * ±Infinity included). Layout: floor, then base and head each as its length (-1: none held) and its
 * numbers, then the number of entries and each entry's at, cost and id (-1: none given).
 */
import type { Entry, Ledger } from '../memory/memory-ledger.js';

/** StoredEntry is one booking with the id a store gives it (the same object in every member's ledger of a composite's booking). */
export interface StoredEntry extends Entry {
  id?: number;
}

/** ledgerNumbers is `ledger` as numbers (layout above). */
export function ledgerNumbers(ledger: Ledger): number[] {
  const numbers: number[] = [ledger.floor];
  for (const state of [ledger.base, ledger.head]) {
    if (state === undefined) numbers.push(-1);
    else numbers.push(state.length, ...state);
  }
  numbers.push(ledger.entries.length);
  for (const e of ledger.entries as readonly StoredEntry[]) numbers.push(e.at, e.cost, e.id ?? -1);
  return numbers;
}

/** ledgerFrom reads numbers back into a ledger; the entry whose id is `keep`'s is `keep` itself (a cancel finds its booking's entry by identity). */
export function ledgerFrom(numbers: ArrayLike<number>, keep?: StoredEntry): Ledger {
  let i = 0;
  const next = () => numbers[i++] as number;
  const floor = next();
  const held = () => {
    const n = next();
    return n < 0 ? undefined : Array.from({ length: n }, next);
  };
  const base = held();
  const head = held();
  const entries = Array.from({ length: next() }, (): StoredEntry => {
    const at = next();
    const cost = next();
    const id = next();
    return keep !== undefined && keep.id === id ? keep : id < 0 ? { at, cost } : { at, cost, id };
  });
  return { base, head, entries, floor };
}
