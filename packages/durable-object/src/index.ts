export { RateLimiterObject, type ObjectState } from './object.js';
export { DurableObjectStore } from './durable-object-store.js';
/** DurableObjectBinding is a rate limit's binding on the store: core's RowBinding. */
export { RowBinding as DurableObjectBinding, CLOSED_RETRY_AFTER_MS } from '@ratekeeper/core/store';
export type { FailureInfo, FailureReason } from './failure-cause.js';
export { DEFAULT_MAX_BATCH, DEFAULT_PREFIX, DEFAULT_TIMEOUT_MS } from './options.js';
export type { DurableObjectStoreOptions, FailurePolicy, LimiterNamespace, LimiterStub, TimeSource } from './options.js';
export type { Answer, Batch, Op, Reply } from './protocol.js';
