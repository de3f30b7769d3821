/**
 * otelTelemetry: a core `Telemetry` that records every decision of the adapters' plan with the
 * OpenTelemetry API — a `ratekeeper.decisions` counter and a `ratekeeper.store.duration` histogram,
 * both attributed by policy, algorithm and outcome — and sets the decision's attributes on the span
 * active when the request was decided (the framework instrumentation's request span).
 *
 * It only uses `@opentelemetry/api`: with no SDK registered the API's no-op meter and tracer make it
 * cost almost nothing, and with no telemetry option at all the plan never calls it. Attribute objects
 * are made once per (policy, outcome) pair and reused, so recording allocates nothing per request.
 * At most MAX_POLICIES policies get their own attribute sets; later ones share an `other` policy label,
 * so a limiter built per request cannot grow the metric's cardinality without bound.
 */
import { type Attributes, type Meter, type MeterProvider, metrics, trace } from '@opentelemetry/api';
import { DECISION_OUTCOMES, type Decision, type DecisionOutcome, type Policy, type Telemetry, describeValue } from '@ratekeeper/core';
import { ATTR_ALGORITHM, ATTR_OUTCOME, ATTR_POLICY, ATTR_REMAINING, ATTR_RETRY_AFTER_MS, METRIC_DECISIONS, METRIC_STORE_DURATION, SCOPE_NAME } from './names.js';

export interface OtelTelemetryOptions {
  /** Where the instruments come from (default: the globally registered MeterProvider). */
  readonly meterProvider?: MeterProvider;
  /** Set the decision's attributes on the active span (default true). */
  readonly spanAttributes?: boolean;
}

const OWNER = 'otelTelemetry';
const KNOWN = new Set(['meterProvider', 'spanAttributes']);
export const MAX_POLICIES = 256;
const OTHER = 'other';

/** otelTelemetry validates `options` and returns the Telemetry to pass as the adapters' `telemetry`. */
export function otelTelemetry(options: OtelTelemetryOptions = {}): Telemetry & { readonly meter: Meter } {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) throw new TypeError(`${OWNER}: options must be an object, got ${describeValue(options)}`);
  const unknown = Object.keys(options).find((k) => !KNOWN.has(k));
  if (unknown !== undefined) throw new TypeError(`${OWNER}: unknown option ${describeValue(unknown)}`);
  const provider = options.meterProvider ?? metrics.getMeterProvider();
  if (typeof provider?.getMeter !== 'function') throw new TypeError(`${OWNER}: meterProvider must be a MeterProvider, got ${describeValue(options.meterProvider)}`);
  if (options.spanAttributes !== undefined && typeof options.spanAttributes !== 'boolean') throw new TypeError(`${OWNER}: spanAttributes must be a boolean, got ${describeValue(options.spanAttributes)}`);
  const spans = options.spanAttributes !== false;

  const meter = provider.getMeter(SCOPE_NAME);
  const decisions = meter.createCounter(METRIC_DECISIONS, { unit: '{decision}', description: 'Rate-limit decisions taken, by policy, algorithm and outcome.' });
  const storeDuration = meter.createHistogram(METRIC_STORE_DURATION, {
    unit: 's',
    description: 'Time a remote store took to decide.',
    advice: { explicitBucketBoundaries: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1] },
  });
  const attributes = attributeSets();

  return {
    meter,
    decided(decision: Decision, outcome: DecisionOutcome, storeMs: number | undefined): void {
      const set = attributes(decision.policy, outcome);
      decisions.add(1, set);
      if (storeMs !== undefined) storeDuration.record(storeMs / 1000, set);
      if (spans) trace.getActiveSpan()?.setAttributes({ ...set, [ATTR_REMAINING]: decision.remaining, [ATTR_RETRY_AFTER_MS]: decision.retryAfterMs });
    },
  };
}

/** attributeSets returns a lookup of frozen attribute objects per (policy, outcome), made once each. */
function attributeSets(): (policy: Policy, outcome: DecisionOutcome) => Attributes {
  const byPolicy = new Map<Policy, Record<DecisionOutcome, Attributes>>();
  const make = (name: string, algorithm: string) =>
    Object.fromEntries(DECISION_OUTCOMES.map((o) => [o, Object.freeze({ [ATTR_POLICY]: name, [ATTR_ALGORITHM]: algorithm, [ATTR_OUTCOME]: o })])) as unknown as Record<DecisionOutcome, Attributes>;
  const others = new Map<string, Record<DecisionOutcome, Attributes>>();
  return (policy, outcome) => {
    let sets = byPolicy.get(policy);
    if (sets === undefined) {
      if (byPolicy.size < MAX_POLICIES) byPolicy.set(policy, (sets = make(policy.name, policy.algorithm)));
      else {
        sets = others.get(policy.algorithm);
        if (sets === undefined) others.set(policy.algorithm, (sets = make(OTHER, policy.algorithm)));
      }
    }
    return sets[outcome];
  };
}
