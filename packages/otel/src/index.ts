export { MAX_POLICIES, type OtelTelemetryOptions, otelTelemetry } from './otel-telemetry.js';
export { type ObservableStore, type ObserveRedisStoreOptions, observeRedisStore } from './observe-redis-store.js';
export {
  ATTR_ALGORITHM,
  ATTR_OUTCOME,
  ATTR_POLICY,
  ATTR_REMAINING,
  ATTR_RETRY_AFTER_MS,
  ATTR_STORE,
  METRIC_DECISIONS,
  METRIC_REDIS_BATCHED,
  METRIC_REDIS_BATCHES,
  METRIC_REDIS_DENY_CACHE_HITS,
  METRIC_REDIS_LEASE_REFILLS,
  METRIC_REDIS_LEASE_RETURNED,
  METRIC_REDIS_LEASE_UNITS,
  METRIC_STORE_DURATION,
  SCOPE_NAME,
} from './names.js';
