/**
 * The built package loads from CommonJS and from ESM on the running Node, in child processes (no test
 * transform involved): require() counts one decision through an SDK meter, import() sees the same names.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as api from '../src/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const node = (args: string[]) => execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8', timeout: 20_000 });

describe('@ratekeeper/otel module systems', () => {
  it('is require()d from CommonJS and records a decision', () => {
    const script = `
      const { otelTelemetry } = require('@ratekeeper/otel');
      const { TokenBucketLimiter } = require('@ratekeeper/core');
      const { MeterProvider, MetricReader } = require('@opentelemetry/sdk-metrics');
      class Reader extends MetricReader { async onShutdown() {} async onForceFlush() {} }
      const reader = new Reader();
      const telemetry = otelTelemetry({ meterProvider: new MeterProvider({ readers: [reader] }) });
      telemetry.decided(new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1 }).consume('k'), 'allowed', undefined);
      reader.collect().then(({ resourceMetrics }) => console.log(JSON.stringify([Object.keys(require('@ratekeeper/otel')).sort(), resourceMetrics.scopeMetrics[0].metrics[0].dataPoints[0].value])));`;
    expect(JSON.parse(node(['-e', script]))).toEqual([Object.keys(api).sort(), 1]);
  });

  it('is import()ed from ESM with the same names', () => {
    const out = node(['--input-type=module', '-e', "const m = await import('@ratekeeper/otel'); console.log(JSON.stringify(Object.keys(m).sort()))"]);
    expect(JSON.parse(out)).toEqual(Object.keys(api).sort());
  });
});
