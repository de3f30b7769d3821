// Section "telemetry": what the adapters' `telemetry` option costs per decision. The plan's decide
// (what every adapter calls once per request) on a TokenBucketLimiter on the memory store, one hot key,
// in four variants measured in alternating short chunks in one process: no telemetry; @ratekeeper/otel
// on the OpenTelemetry API with no SDK registered (no-op instruments); on an SDK MeterProvider with a
// reader (what production runs); and the limiter's `allow` alone, for scale. Reported: median ns per
// decision over the chunks and the ratio to "no telemetry".
//
// Flags: --telemetry-rounds=N (41 alternations), --telemetry-n=N (20000 decisions per chunk).
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { TokenBucketLimiter } from '@ratekeeper/core';
import { otelTelemetry } from '@ratekeeper/otel';
import { flags } from './lib/args.mjs';
import { median } from './lib/stats.mjs';
import { fixed, formatTable } from './lib/table.mjs';
import { prepareRateLimit } from '@ratekeeper/core/adapter';

class Reader extends MetricReader {
  async onShutdown() {}
  async onForceFlush() {}
}

const limiter = () => new TokenBucketLimiter({ capacity: 1e12, refillPerSecond: 1e6 });
const planLoop = () => new Function('plan', 'n', 'let a = 0; for (let i = 0; i < n; i++) if (plan.decide(null, "203.0.113.7").allowed) a++; return a;');

export async function run(args) {
  const f = flags(args);
  const rounds = Number(f['telemetry-rounds'] ?? 41);
  const n = Number(f['telemetry-n'] ?? 20_000);
  const sdk = new MeterProvider({ readers: [new Reader()] });
  const variants = [
    { label: 'plan.decide, no telemetry', plan: prepareRateLimit('bench', { limiter: limiter() }), loop: planLoop() },
    { label: 'plan.decide, otel API without SDK', plan: prepareRateLimit('bench', { limiter: limiter(), telemetry: otelTelemetry() }), loop: planLoop() },
    {
      label: 'plan.decide, otel SDK MeterProvider',
      plan: prepareRateLimit('bench', { limiter: limiter(), telemetry: otelTelemetry({ meterProvider: sdk, spanAttributes: false }) }),
      loop: planLoop(),
    },
    {
      label: 'limiter.allow (no plan), for scale',
      plan: limiter(),
      loop: new Function('l', 'n', 'let a = 0; for (let i = 0; i < n; i++) if (l.allow("203.0.113.7")) a++; return a;'),
    },
  ];
  const samples = variants.map(() => []);
  for (let r = -5; r < rounds; r++) {
    variants.forEach((v, i) => {
      const t = process.hrtime.bigint();
      const allowed = v.loop(v.plan, n);
      const ns = Number(process.hrtime.bigint() - t) / n;
      if (allowed !== n) throw new Error(`${v.label}: ${allowed} of ${n} allowed`);
      if (r >= 0) samples[i].push(ns);
    });
  }
  const base = median(samples[0]);
  const rows = variants.map((v, i) => [v.label, fixed(median(samples[i]), 1), `${fixed(median(samples[i]) / base, 2)}×`]);
  console.log(`telemetry — one decision through the adapters' plan on the memory store, hot key; ${rounds} alternating chunks of ${n}; medians`);
  console.log(formatTable(['variant', 'ns/decision', 'vs no telemetry'], rows));
  await sdk.shutdown();
}
