export { MAX_POLICIES, type OtelTelemetryOptions, otelTelemetry } from './otel-telemetry.js';
export { ATTR_ALGORITHM, ATTR_OUTCOME, ATTR_POLICY, ATTR_REMAINING, ATTR_RETRY_AFTER_MS, METRIC_DECISIONS, METRIC_STORE_DURATION, SCOPE_NAME } from './names.js';
