/**
 * The names ratekeeper's telemetry publishes. No OpenTelemetry semantic convention covers rate
 * limiting yet; these follow the general naming rules (dot-separated lower-case namespaces, units in
 * UCUM, durations in seconds) and the closest precedent, ASP.NET Core's `aspnetcore.rate_limiting.*`.
 * They are part of the public API: a contract test freezes them, and a change is a breaking change.
 */

/** Counter, unit `{decision}`: one per decision the adapters take. */
export const METRIC_DECISIONS = 'ratekeeper.decisions';
/** Histogram, unit `s`: how long a remote store took to decide (absent for the in-memory store). */
export const METRIC_STORE_DURATION = 'ratekeeper.store.duration';

/** The policy that decided (its name, as in `RateLimit-Policy`); a composite reports the member that did. */
export const ATTR_POLICY = 'ratekeeper.policy';
/** The algorithm of that policy: `token-bucket`, `sliding-window`, `fixed-window`, … */
export const ATTR_ALGORITHM = 'ratekeeper.algorithm';
/** What the decision meant for the request: one of core's DECISION_OUTCOMES. */
export const ATTR_OUTCOME = 'ratekeeper.outcome';
/** Span only: whole units left after the request. */
export const ATTR_REMAINING = 'ratekeeper.remaining';
/** Span only: the Retry-After wait in milliseconds (0 when allowed). */
export const ATTR_RETRY_AFTER_MS = 'ratekeeper.retry_after_ms';

/** Observable counter, unit `{batch}`: multi-call batches a RedisStore sent (observeRedisStore). */
export const METRIC_REDIS_BATCHES = 'ratekeeper.redis.batches';
/** Observable counter, unit `{decision}`: decisions those batches carried (÷ batches = mean batch size). */
export const METRIC_REDIS_BATCHED = 'ratekeeper.redis.batched_decisions';
/** Observable counter, unit `{decision}`: decisions a RedisStore answered from its deny cache. */
export const METRIC_REDIS_DENY_CACHE_HITS = 'ratekeeper.redis.deny_cache.hits';
/** Observable counter, unit `{refill}`: lease takes Redis answered for a store's LeasedLimiters (observeRedisStore). */
export const METRIC_REDIS_LEASE_REFILLS = 'ratekeeper.redis.lease.refills';
/** Observable counter, unit `{unit}`: units those takes granted (spent locally, or given back). */
export const METRIC_REDIS_LEASE_UNITS = 'ratekeeper.redis.lease.units';
/** Observable counter, unit `{unit}`: leased units given back unspent (expired, evicted, closed). */
export const METRIC_REDIS_LEASE_RETURNED = 'ratekeeper.redis.lease.returned_units';
/** The attribute naming the observed store (observeRedisStore's `name`). */
export const ATTR_STORE = 'ratekeeper.store';

/** The instrumentation scope's name. */
export const SCOPE_NAME = '@ratekeeper/otel';
