export { MAX_POLICY_NAME, MySqlStore, type MySqlStoreEvents } from './mysql-store.js';
export type { MySqlConnection, MySqlPool, QueryResult } from './client.js';
export { type MySqlStoreOptions, type TimeSource, DEFAULT_TABLE } from './options.js';
export { CLOSED_RETRY_AFTER_MS, DEFAULT_CONCURRENCY_LEASE_TTL_MS, EXPIRED_GRACE_MS, MAX_RAW_KEY_LENGTH } from '@ratekeeper/core/store';
export type { FailureInfo, FailurePolicy, FailureReason } from '@ratekeeper/core/store';
export { mysqlSchema } from './sql.js';
