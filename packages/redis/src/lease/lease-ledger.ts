/**
 * LeaseLedger: the pure accounting of one key's lease in one process (./leased.ts does the I/O).
 *
 * Units come from takes (one lease-script call each, ../lua/lease-script.ts). A take sent at local
 * instant s may be spent until s + ttlMs and never after: its units then expire and go back. The
 * ledger keeps at most two generations, `old` (spent first) and `young`, each with the instant its
 * units expire; a third take merges the young into the old generation under the old, earlier expiry
 * (a unit may expire early, never late).
 *
 * Invariants, for `units` = k (proved by the property test beside this file):
 *   - held + asked ≤ k at every instant: a refill asks k − held while nothing else is on the wire, and
 *     held only falls until its answer comes. So a process keeps at most k units out of the shared
 *     bucket (taken, or being taken, and not yet spent): the under-admission of N processes is at most
 *     N·k at any instant.
 *   - spent ≤ granted: a spend succeeds only when held covers the whole cost.
 *   - granted = spent + returned + held: every unit is spent, handed back by `expire` or `drain`, or
 *     still held.
 *   - no unit is spent at or after its take's send instant + ttlMs.
 */

export interface LeaseLedger {
  /** Units of the older take still held, and the instant they expire. */
  old: number;
  oldUntil: number;
  /** Units of the newer take, and their expiry. */
  young: number;
  youngUntil: number;
  /** Units asked of Redis by the take on the wire (0: none on the wire), and when it was sent. */
  asked: number;
  askedAt: number;
}

export function emptyLedger(): LeaseLedger {
  return { old: 0, oldUntil: 0, young: 0, youngUntil: 0, asked: 0, askedAt: 0 };
}

export function held(l: LeaseLedger): number {
  return l.old + l.young;
}

/**
 * expire drops the units whose expiry is at or before `now` and answers how many went (the caller
 * gives them back to Redis).
 */
export function expire(l: LeaseLedger, now: number): number {
  let gone = 0;
  if (l.young > 0 && now >= l.youngUntil) {
    gone += l.young;
    l.young = 0;
  }
  if (l.old > 0 && now >= l.oldUntil) {
    gone += l.old;
    l.old = 0;
  }
  promote(l);
  return gone;
}

/** promote makes the young units old once no old ones are left (the older are always spent first). */
function promote(l: LeaseLedger): void {
  if (l.old === 0 && l.young > 0) {
    l.old = l.young;
    l.oldUntil = l.youngUntil;
    l.young = 0;
  }
}

/** spend takes `cost` units, the older first, when the ledger holds that many; `expire` must run first. */
export function spend(l: LeaseLedger, cost: number): boolean {
  if (l.old + l.young < cost) return false;
  if (l.old >= cost) {
    l.old -= cost;
  } else {
    l.young -= cost - l.old;
    l.old = 0;
  }
  promote(l);
  return true;
}

/** ask records a take of `k − held` units sent at `now` and answers its size (0: nothing to ask). */
export function ask(l: LeaseLedger, k: number, now: number): number {
  if (l.asked > 0) return 0;
  const n = k - held(l);
  if (n <= 0) return 0;
  l.asked = n;
  l.askedAt = now;
  return n;
}

/**
 * receive books the answer to the take on the wire: `granted` units (at most what was asked),
 * spendable until the send instant + ttlMs. A failed take is received as 0.
 */
export function receive(l: LeaseLedger, granted: number, ttlMs: number): void {
  const until = l.askedAt + ttlMs;
  l.asked = 0;
  if (granted <= 0) return;
  if (l.old === 0) {
    l.old = granted;
    l.oldUntil = until;
  } else if (l.young === 0) {
    l.young = granted;
    l.youngUntil = until;
  } else {
    l.old += l.young;
    if (l.youngUntil < l.oldUntil) l.oldUntil = l.youngUntil;
    l.young = granted;
    l.youngUntil = until;
  }
  if (l.young > 0 && l.youngUntil < l.oldUntil) {
    // A clock that stepped back: keep the earliest expiry for the units that must go first.
    l.old += l.young;
    l.oldUntil = l.youngUntil;
    l.young = 0;
  }
}

/** drain empties the ledger (eviction, close) and answers the units held, to be given back. */
export function drain(l: LeaseLedger): number {
  const n = l.old + l.young;
  l.old = l.young = 0;
  return n;
}
