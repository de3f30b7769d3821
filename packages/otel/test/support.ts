/**
 * A MeterProvider read on demand (a MetricReader whose collect() the test calls), and helpers that
 * flatten what it collected into { name, unit, type, points: [{ attributes, value }] } rows.
 */
import { DataPointType, MeterProvider, MetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';

export class TestReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

export interface Row {
  readonly name: string;
  readonly unit: string;
  readonly type: string;
  readonly points: readonly { readonly attributes: Record<string, unknown>; readonly value: unknown }[];
}

export function meterProvider(): { provider: MeterProvider; read: () => Promise<Row[]> } {
  const reader = new TestReader();
  const provider = new MeterProvider({ readers: [reader] });
  return {
    provider,
    async read() {
      const { resourceMetrics } = (await reader.collect()) as { resourceMetrics: ResourceMetrics };
      return resourceMetrics.scopeMetrics.flatMap((s) =>
        s.metrics.map((m) => ({
          name: m.descriptor.name,
          unit: m.descriptor.unit,
          type: m.dataPointType === DataPointType.SUM ? (m.isMonotonic ? 'monotonic SUM' : 'SUM') : DataPointType[m.dataPointType],
          points: m.dataPoints.map((p) => ({ attributes: { ...p.attributes }, value: p.value })),
        })),
      );
    },
  };
}

/** count returns the counter's value for the outcome (and policy), 0 when no point has it. */
export function count(rows: readonly Row[], outcome: string, policy?: string): number {
  const decisions = rows.find((r) => r.name === 'ratekeeper.decisions');
  const point = decisions?.points.find((p) => p.attributes['ratekeeper.outcome'] === outcome && (policy === undefined || p.attributes['ratekeeper.policy'] === policy));
  return (point?.value as number | undefined) ?? 0;
}
