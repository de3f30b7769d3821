/**
 * otelTelemetry: a core `Telemetry` that records every decision the adapters take, with the
 * OpenTelemetry API — a `ratekeeper.decisions` counter and a `ratekeeper.store.duration` histogram,
 * both attributed by policy, algorithm and outcome — and sets the decision's attributes on the span
 * active when the request was decided (the framework instrumentation's request span).
 *
 * The counter is an observable one: a decision adds one to a number held here (one Map lookup and one
 * increment), and the SDK reads the running totals when it collects. A synchronous counter's `add`
 * would hash the attribute set on every request inside the SDK, which costs a busy server far more
 * than the decision itself (see the benchmarks' "telemetry" section). The store histogram is recorded
 * per decision, but only for a limiter that answered with a promise (a remote store's round trip
 * dwarfs it). The span is only touched when one is active and recording.
 *
 * It only uses `@opentelemetry/api`: with no SDK registered the API's no-op meter and tracer make it
 * cost almost nothing, and with no telemetry option at all decide never calls it. At most
 * MAX_POLICIES policies get their own label; later ones share an `other` label, so a limiter built per
 * request cannot grow the metric's cardinality without bound.
 */
import { type Attributes, type Meter, type MeterProvider, metrics, trace } from '@opentelemetry/api';
import { type Decision, type DecisionOutcome, type Policy, type Telemetry } from '@ratekeeper/core';
import { DECISION_OUTCOMES, describeValue } from '@ratekeeper/core/adapter';
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
  if (options.spanAttributes !== undefined && typeof options.spanAttributes !== 'boolean')
    throw new TypeError(`${OWNER}: spanAttributes must be a boolean, got ${describeValue(options.spanAttributes)}`);
  const spans = options.spanAttributes !== false;

  const meter = provider.getMeter(SCOPE_NAME);
  const tallies = new Tallies();
  const decisions = meter.createObservableCounter(METRIC_DECISIONS, { unit: '{decision}', description: 'Rate-limit decisions taken, by policy, algorithm and outcome.' });
  decisions.addCallback((result) => tallies.each((count, attributes) => result.observe(count, attributes)));
  const storeDuration = meter.createHistogram(METRIC_STORE_DURATION, {
    unit: 's',
    description: 'Time a remote store took to decide.',
    advice: { explicitBucketBoundaries: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1] },
  });

  return {
    meter,
    decided(decision: Decision, outcome: DecisionOutcome, storeMs: number | undefined): void {
      const tally = tallies.of(decision.policy);
      const index = OUTCOME_INDEX[outcome];
      (tally.counts[index] as number)++;
      const set = tally.sets[index] as Attributes;
      if (storeMs !== undefined) storeDuration.record(storeMs / 1000, set);
      if (!spans) return;
      const span = trace.getActiveSpan();
      if (span !== undefined && span.isRecording()) span.setAttributes({ ...set, [ATTR_REMAINING]: decision.remaining, [ATTR_RETRY_AFTER_MS]: decision.retryAfterMs });
    },
  };
}

const OUTCOME_INDEX = Object.fromEntries(DECISION_OUTCOMES.map((o, i) => [o, i])) as Record<DecisionOutcome, number>;

interface Tally {
  /** The attribute set of each outcome, in DECISION_OUTCOMES order, made once. */
  readonly sets: readonly Attributes[];
  /** The running count of each outcome. */
  readonly counts: Float64Array;
}

/** Tallies holds the running counts per policy (at most MAX_POLICIES, then `other` per algorithm). */
class Tallies {
  readonly #byPolicy = new Map<Policy, Tally>();
  readonly #others = new Map<string, Tally>();

  of(policy: Policy): Tally {
    let tally = this.#byPolicy.get(policy);
    if (tally !== undefined) return tally;
    if (this.#byPolicy.size < MAX_POLICIES) {
      tally = make(policy.name, policy.algorithm);
      this.#byPolicy.set(policy, tally);
      return tally;
    }
    tally = this.#others.get(policy.algorithm);
    if (tally === undefined) this.#others.set(policy.algorithm, (tally = make(OTHER, policy.algorithm)));
    return tally;
  }

  /** each calls `observe` with every outcome's count that is not zero. */
  each(observe: (count: number, attributes: Attributes) => void): void {
    for (const tallies of [this.#byPolicy, this.#others]) {
      for (const { sets, counts } of tallies.values()) {
        for (let i = 0; i < counts.length; i++) if ((counts[i] as number) > 0) observe(counts[i] as number, sets[i] as Attributes);
      }
    }
  }
}

function make(name: string, algorithm: string): Tally {
  const sets = DECISION_OUTCOMES.map((o) => Object.freeze({ [ATTR_POLICY]: name, [ATTR_ALGORITHM]: algorithm, [ATTR_OUTCOME]: o }));
  return { sets, counts: new Float64Array(sets.length) };
}
