/**
 * `@ratekeeper/core/store`: what a store author needs. The Store contract a store implements
 * (./contract.ts; the root entry exports the same types, beside the limiters that take a store); the
 * row-store kit (./rows/), which implements the whole contract over one primitive a store supplies;
 * the remote store kit (./remote/index.ts: deadlines, the failure policy, peers); and what a store
 * that runs core's own steps on its states uses (the steps, the step's scratch output and its
 * decision, the memory store's binding and booking bound).
 */
export type { Booking, Mode, Result, Store, StoreBinding } from './contract.js';
export * from './remote/index.js';
export { type StepOutput, type UsageOutput, stepOutput, toDecision, usageOutput } from '../algorithm.js';
export { toUsage } from '../usage.js';
// The algorithms' pure steps, which a store that keeps states of its own runs (SQL, Durable Objects).
export { tokenBucket } from '../algorithms/token-bucket.js';
export { slidingWindow } from '../algorithms/sliding-window.js';
export { fixedWindow } from '../algorithms/fixed-window.js';
export { firstRequestWindow } from '../algorithms/first-request-window.js';
export { slidingLog } from '../algorithms/sliding-log.js';
export { concurrency } from '../algorithms/concurrency.js';
export { MemoryBinding } from '../memory/memory-binding.js';
// The bound on a key's live bookings, which a store that keeps its own booking ledger enforces.
export { CANCELLABLE_BOOKINGS } from '../memory/memory-ledger.js';
// The option validators every package shares (also in @ratekeeper/core/adapter).
export { describeValue, refuseUnknown } from '../validate.js';
// The concurrency leases' default time to live and its option check (the kit keeps the leases).
export { DEFAULT_CONCURRENCY_LEASE_TTL_MS, leaseTtlOption } from './leases/lease-options.js';
// The row-store kit: every capability of the Store contract over one primitive a row store supplies (rows/).
export { type Row, type RowRef, type Rows, type Write, PINNED, emptyRow } from './rows/row.js';
export { MAX_RAW_KEY_LENGTH, nameHead, rowId } from './rows/row-id.js';
export {
  type Answer,
  type BanRef,
  type BlockOp,
  type BookOp,
  type Booked,
  type CancelOp,
  type ChargeOp,
  type DecideOp,
  type Part,
  type RefundOp,
  type RenewOp,
  type ResetOp,
  type RowOp,
  type UsageFigures,
  type UsageOp,
  refsOf,
} from './rows/ops.js';
export { applyOp } from './rows/apply.js';
export type { Runner } from './rows/runner.js';
export { COMMITTED, type Decided, Expired, type SyncTransactor, type Transactor, type Work, expiredAt } from './rows/transactor.js';
export { BatchRunner, type BatchRunnerOptions } from './rows/batcher.js';
export { SyncRunner } from './rows/sync-runner.js';
export { type Locked, type SqlDialect, type SqlErrorKind, type SqlSession, SqlTransactor, type SqlTransactorOptions, sqlFailureOf } from './rows/sql-transactor.js';
export { EXPIRED_GRACE_MS, Housekeeping, SWEEP_EVERY_MS, SWEEP_LIMIT } from './rows/housekeeping.js';
export { type EngineOptions, RowEngine } from './rows/engine.js';
export { RowBinding } from './rows/binding.js';
export { RowLeases } from './rows/leases.js';
export { MAX_MEMBERS } from './rows/composite.js';
export { RowStore, type RowStoreOptions, type RowStoreOptionsOf } from './rows/row-store.js';
export { FailureEvents } from './rows/events.js';
export { PolicyNames } from './rows/names.js';
