export { MySqlStore, type MySqlStoreEvents } from './mysql-store.js';
export { MySqlBinding } from './bindings/binding.js';
export { MySqlLeases } from './bindings/leases.js';
export type { MySqlConnection, MySqlPool, QueryResult } from './wire/client.js';
export { type MySqlStoreOptions, type TimeSource, DEFAULT_TABLE } from './options.js';
export { CLOSED_RETRY_AFTER_MS, DEFAULT_CONCURRENCY_LEASE_TTL_MS, type FailureInfo, type FailurePolicy, type FailureReason } from '@ratekeeper/core/store';
export { MAX_RAW_KEY_LENGTH } from './rows/codec.js';
export { MAX_POLICY_NAME, mysqlSchema } from './sql/dialect.js';
export { EXPIRED_GRACE_MS } from './sql/housekeeping.js';
