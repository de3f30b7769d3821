/**
 * `@ratekeeper/core/store`: what a store author needs beyond the application's API: the remote store
 * kit (./remote/index.ts), and what a store that runs core's own steps on its states uses (the step's
 * scratch output and its decision, the ban's denial, the memory store's binding and booking bound).
 * The Store contract itself (Store, StoreBinding, Booking) stays in the root entry, beside the limiters
 * that take a store.
 */
export * from './remote/index.js';
export { type StepOutput, stepOutput, toDecision } from '../algorithm.js';
// The algorithms' pure steps, which a store that keeps states of its own runs (SQL, Durable Objects).
export { tokenBucket } from '../algorithms/token-bucket.js';
export { slidingWindow } from '../algorithms/sliding-window.js';
export { fixedWindow } from '../algorithms/fixed-window.js';
export { slidingLog } from '../algorithms/sliding-log.js';
export { concurrency } from '../algorithms/concurrency.js';
export { bannedDecision } from '../decision.js';
export { MemoryBinding } from '../memory/memory-binding.js';
export { cancelBooking } from '../memory/memory-reserve.js';
// A booking ledger kept in a store's own row (PostgreSQL, SQLite).
export { type StoredEntry, ledgerFrom, ledgerNumbers } from './ledger-numbers.js';
export { CANCELLABLE_BOOKINGS, type Ledger, latestBooked } from '../memory/memory-ledger.js';
// The option validators every package shares (also in @ratekeeper/core/adapter).
export { describeValue, refuseUnknown } from '../validate.js';
// Concurrency leases kept in a store's own rows (the SQL stores).
export { type LeaseState, type LeaseWork, leaseExpiry, leaseView, releaseLeases, renewLeases, takeLeases } from './leases/lease-rows.js';
export { DEFAULT_CONCURRENCY_LEASE_TTL_MS, type LeaseAnswer, type LeaseCall, LeaseHolder, type LeaseHolderOptions, leaseTtlOption } from './leases/lease-holder.js';
