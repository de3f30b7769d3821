export { SqliteStore, type SqliteStoreEvents } from './sqlite-store.js';
export { SqliteBinding } from './bindings/binding.js';
export type { DriverChoice, DriverName } from './file/driver.js';
export type { FailureInfo, FailureReason } from './file/failure.js';
export { CLOSED_RETRY_AFTER_MS, type FailurePolicy } from '@ratekeeper/core/store';
export { MAX_RAW_KEY_LENGTH } from './rows/keys.js';
export { EXPIRED_GRACE_MS } from './rows/table.js';
export { DEFAULT_BUSY_TIMEOUT_MS, DEFAULT_CONCURRENCY_LEASE_TTL_MS, DEFAULT_PROBE_INTERVAL_MS, type SqliteStoreOptions } from './options.js';
