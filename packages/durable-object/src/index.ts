export { RateLimiterObject, type ObjectState } from './object.js';
export { DurableObjectStore } from './durable-object-store.js';
export { DurableObjectBinding } from './binding.js';
export type { FailureInfo, FailureReason } from './failure.js';
export { CLOSED_RETRY_AFTER_MS } from './failure.js';
export {
  DEFAULT_MAX_BATCH,
  DEFAULT_PREFIX,
  DEFAULT_TIMEOUT_MS,
  type DurableObjectStoreOptions,
  type FailurePolicy,
  type LimiterNamespace,
  type LimiterStub,
  type TimeSource,
} from './options.js';
export type { Answer, Batch, Booked, CancelOp, DecideOp, Figures, Op, OpBase, RefundOp, Reply, ReserveOp, ResetOp } from './protocol.js';
