export { SqliteStore, type SqliteStoreEvents } from './sqlite-store.js';
export type { DriverChoice, DriverName } from './driver.js';
export type { FailureInfo, FailureReason } from './failure.js';
export { CLOSED_RETRY_AFTER_MS, DEFAULT_CONCURRENCY_LEASE_TTL_MS, DEFAULT_PROBE_INTERVAL_MS } from '@ratekeeper/core/store';
export { EXPIRED_GRACE_MS, type FailurePolicy, MAX_RAW_KEY_LENGTH } from '@ratekeeper/core/store';
export { DEFAULT_BUSY_TIMEOUT_MS, type SqliteStoreOptions } from './options.js';
