/**
 * MUTANTS of the lease ledger (src/lease/lease-ledger.ts), each one classic slip; the ledger's property test
 * (src/lease/lease-ledger.test.ts) must catch every one:
 *   overspending  spends when the lease is one unit short (held ≥ cost − 1);
 *   forgetful     expired units vanish without being answered for return;
 *   greedy        a refill asks k whatever is still held (a process can hold up to 2k);
 *   late          a refill's units expire ttlMs after the answer, not after the send.
 */
import * as ledger from '../../src/lease/lease-ledger.js';
import type { LeaseLedger } from '../../src/lease/lease-ledger.js';

export type Ledger = Pick<typeof ledger, 'expire' | 'spend' | 'ask' | 'receive' | 'drain' | 'held' | 'emptyLedger'>;

export const overspending: Ledger = {
  ...ledger,
  spend(l: LeaseLedger, cost: number): boolean {
    if (ledger.held(l) + 1 < cost) return false;
    const short = cost > ledger.held(l) ? 1 : 0;
    const ok = ledger.spend(l, cost - short);
    l.old -= short;
    return ok;
  },
};

export const forgetful: Ledger = {
  ...ledger,
  expire(l: LeaseLedger, now: number): number {
    ledger.expire(l, now);
    return 0;
  },
};

export const greedy: Ledger = {
  ...ledger,
  ask(l: LeaseLedger, k: number, now: number): number {
    if (l.asked > 0) return 0;
    l.asked = k;
    l.askedAt = now;
    return k;
  },
};

/** late needs the answer's instant: the property passes it as a third argument to receive. */
export const late: Ledger = {
  ...ledger,
  receive(l: LeaseLedger, granted: number, ttlMs: number, answeredAt?: number): void {
    if (answeredAt !== undefined) l.askedAt = answeredAt;
    ledger.receive(l, granted, ttlMs);
  },
} as Ledger;
