export { PostgresStore, type PostgresStoreEvents } from './postgres-store.js';
export type { FailureInfo, FailureReason } from '@ratekeeper/core/store';
export { CLOSED_RETRY_AFTER_MS, DEFAULT_CONCURRENCY_LEASE_TTL_MS, EXPIRED_GRACE_MS, type FailurePolicy, MAX_RAW_KEY_LENGTH } from '@ratekeeper/core/store';
export { DEFAULT_TABLE, type PostgresStoreOptions, type TimeSource } from './options.js';
export { postgresSchema } from './schema.js';
