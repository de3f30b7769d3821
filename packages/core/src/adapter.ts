/**
 * `@ratekeeper/core/adapter`: what a framework adapter needs beyond the application's API. The prepared
 * options (`prepareRateLimit`: validated once, then one `decide` per request), the header, status and
 * body writers, the client identity and proxy checks, the settling of an admitted request's work, the
 * telemetry outcome names, and the option validators every package shares (`describeValue`,
 * `refuseUnknown`). Applications import `@ratekeeper/core`; store authors `@ratekeeper/core/store`.
 */
export * from './http/index.js';
export { describeValue, refuseUnknown } from './validate.js';
// outcomeOf: 0.1.0 exported it from the root, whose deprecation sends its users here.
export { DECISION_OUTCOMES, type DecisionOutcome, type Telemetry, outcomeOf } from './telemetry.js';
