export { MySqlStore, type MySqlStoreEvents } from './mysql-store.js';
export { MySqlBinding } from './binding.js';
export { MySqlLeases } from './leases.js';
export type { MySqlConnection, MySqlPool, QueryResult } from './client.js';
export { type MySqlStoreOptions, type TimeSource, DEFAULT_TABLE } from './options.js';
export { CLOSED_RETRY_AFTER_MS, DEFAULT_LEASE_TTL_MS as DEFAULT_CONCURRENCY_LEASE_TTL_MS, type FailureInfo, type FailurePolicy, type FailureReason } from '@ratekeeper/core/store';
export { MAX_RAW_KEY_LENGTH } from './codec.js';
export { MAX_POLICY_NAME, schemaSql as mysqlSchema } from './dialect.js';
export { EXPIRED_GRACE_MS } from './housekeeping.js';
