export { RedisStore, type RedisStoreEvents } from './redis-store.js';
export { RedisBinding } from './binding.js';
export type { RedisClientLike } from './client.js';
export type { FailureInfo, FailureReason } from './failure.js';
export { CLOSED_RETRY_AFTER_MS } from './decisions.js';
export { MAX_RAW_KEY_LENGTH, storageKey } from './keys.js';
export { DEFAULT_PREFIX, DEFAULT_PROBE_INTERVAL_MS, DEFAULT_TIMEOUT_MS, type FailurePolicy, type RedisStoreOptions, type TimeSource } from './options.js';
export { LeasedLimiter } from './leased.js';
export { DEFAULT_LEASE_KEYS, DEFAULT_LEASE_TTL_MS, type LeasedOptions } from './lease-options.js';
