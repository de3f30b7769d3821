/**
 * Concurrency leases in a key's stored state, for stores that run core's steps on locked rows (the SQL
 * stores; ../rows/leases.ts is the process side). The state is the number of units leased, then each
 * unit's lease as three numbers, [expiresAt, holder, seq]: when it expires on the store's clock, the
 * binding (one per process and policy) that holds it, and its number there. Expiry needs no other
 * table and no scan: a lease whose instant has passed is simply not counted, and leaves the state with
 * the next write of that key; the state's own expiry is its latest lease's, so a sweep of expired rows
 * deletes one whose every lease expired.
 *
 * Pure: each function reads a state and answers the next one with its expiry (state undefined when no
 * lease is left), or undefined for "no change". The count in front is what core's concurrency step
 * decides on (its state is that one number), so a key's decision is the memory store's on the leases
 * still live.
 */

/** Lease is one leased unit: its expiry, its holder and its number at the holder. */
interface Lease {
  readonly expiresAt: number;
  readonly holder: number;
  readonly seq: number;
}

/**
 * LeaseWork is a lease binding's share of one call: the holder (one per process and policy) and how
 * long a lease lives; the units to give back (release) or renew; and, answered by the call's last
 * attempt (a transaction run again overwrites it), the units it took or still holds.
 */
export interface LeaseWork {
  readonly holder: number;
  readonly ttlMs: number;
  readonly seqs: readonly number[];
  /** The number of the holder's next unit. */
  nextSeq(): number;
  taken: number[];
}

/** LeaseState is a state to write back and its expiry (0 with no state). */
export interface LeaseState {
  readonly state: Float64Array | undefined;
  readonly expiresAt: number;
}

/** leasesOf reads a state's leases (all of them, live or not). */
function leasesOf(state: ArrayLike<number> | undefined): Lease[] {
  const leases: Lease[] = [];
  if (state === undefined) return leases;
  for (let i = 1; i + 2 < state.length; i += 3) {
    leases.push({ expiresAt: state[i] as number, holder: state[i + 1] as number, seq: state[i + 2] as number });
  }
  return leases;
}

/** live keeps the leases still running at `at`. */
function live(leases: readonly Lease[], at: number): Lease[] {
  return leases.filter((lease) => lease.expiresAt > at);
}

/** leaseState writes `leases` back as a state (undefined: none left) with its expiry (the latest lease's). */
function leaseState(leases: readonly Lease[]): LeaseState {
  if (leases.length === 0) return { state: undefined, expiresAt: 0 };
  const state = new Float64Array(1 + 3 * leases.length);
  state[0] = leases.length;
  let expiresAt = 0;
  leases.forEach((lease, i) => {
    state[1 + 3 * i] = lease.expiresAt;
    state[2 + 3 * i] = lease.holder;
    state[3 + 3 * i] = lease.seq;
    if (lease.expiresAt > expiresAt) expiresAt = lease.expiresAt;
  });
  return { state, expiresAt };
}

/** leaseExpiry is a lease state's expiry: its latest lease's (0 for none). */
export function leaseExpiry(state: ArrayLike<number> | undefined): number {
  return leaseState(leasesOf(state)).expiresAt;
}

/** leaseView is the state core's concurrency step decides on: the number of leases live at `at` (undefined: none). */
export function leaseView(state: ArrayLike<number> | undefined, at: number): Float64Array | undefined {
  const count = live(leasesOf(state), at).length;
  return count === 0 ? undefined : Float64Array.of(count);
}

/** takeLeases records `cost` new leases of the work's holder (expired ones leave with them); `work.taken` answers their numbers. */
export function takeLeases(state: ArrayLike<number> | undefined, work: LeaseWork, at: number, cost: number): LeaseState {
  const leases = live(leasesOf(state), at);
  const taken: number[] = [];
  for (let i = 0; i < cost; i++) {
    const seq = work.nextSeq();
    taken.push(seq);
    leases.push({ expiresAt: at + work.ttlMs, holder: work.holder, seq });
  }
  work.taken = taken;
  return leaseState(leases);
}

/** releaseLeases drops the work's holder's units named in `work.seqs`; undefined when none of them was there. */
export function releaseLeases(state: ArrayLike<number> | undefined, work: LeaseWork, at: number): LeaseState | undefined {
  const leases = leasesOf(state);
  const gone = new Set(work.seqs);
  const left = leases.filter((lease) => !(lease.holder === work.holder && gone.has(lease.seq)));
  return left.length === leases.length ? undefined : leaseState(live(left, at));
}

/**
 * renewLeases moves the work's holder's live units named in `work.seqs` to expire ttlMs after `at`;
 * `work.taken` answers those renewed. A lease that already expired is never revived: another request
 * may have its place.
 */
export function renewLeases(state: ArrayLike<number> | undefined, work: LeaseWork, at: number): LeaseState {
  const mine = new Set(work.seqs);
  const kept: number[] = [];
  const leases = live(leasesOf(state), at).map((lease) => {
    if (lease.holder !== work.holder || !mine.has(lease.seq)) return lease;
    kept.push(lease.seq);
    return { ...lease, expiresAt: at + work.ttlMs };
  });
  work.taken = kept;
  return leaseState(leases);
}
