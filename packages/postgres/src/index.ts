export { PostgresStore, type PostgresStoreEvents } from './postgres-store.js';
export { PostgresBinding } from './bindings/binding.js';
export { PostgresLeases } from './bindings/leases.js';
export type { FailureInfo, FailureReason } from './wire/failure.js';
export { CLOSED_RETRY_AFTER_MS, type FailurePolicy } from '@ratekeeper/core/store';
export { MAX_RAW_KEY_LENGTH } from './rows/keys.js';
export { DEFAULT_CONCURRENCY_LEASE_TTL_MS, DEFAULT_TABLE, type PostgresStoreOptions, type TimeSource } from './options.js';
export { postgresSchema } from './sql/schema.js';
export { EXPIRED_GRACE_MS } from './sql/sweep.js';
