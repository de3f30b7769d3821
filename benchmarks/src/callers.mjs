// Section "callers": what issue 8's per-caller features cost the synchronous path. The plan's decide
// (what every adapter calls once per request) on a TokenBucketLimiter on the memory store, one hot
// key, in alternating short chunks in one process:
//   - "before": the same plan built by another core build (--callers-before=<path to its dist/esm/index.js>,
//     e.g. a checkout of main), when given: the cost before async hooks, plans and settle existed;
//   - default options (the client IP key); a synchronous key function; plans with a synchronous plan
//     function; countOutcome given (the charge is recorded for the response's end).
// Reported: median ns per decision over the chunks and the ratio to "default options".
//
// Flags: --callers-rounds=N (41 alternations), --callers-n=N (20000 decisions per chunk),
//        --callers-before=PATH.
import { pathToFileURL } from 'node:url';
import { TokenBucketLimiter } from '@ratekeeper/core';
import { flags } from './lib/args.mjs';
import { median } from './lib/stats.mjs';
import { fixed, formatTable } from './lib/table.mjs';
import { prepareRateLimit } from '@ratekeeper/core/adapter';

const loop = () => new Function('plan', 'req', 'n', 'let a = 0; for (let i = 0; i < n; i++) if (plan.decide(req, "203.0.113.7").allowed) a++; return a;');

export async function run(args) {
  const f = flags(args);
  const rounds = Number(f['callers-rounds'] ?? 41);
  const n = Number(f['callers-n'] ?? 20_000);
  const bucket = (core = { TokenBucketLimiter }) => new core.TokenBucketLimiter({ capacity: 1e12, refillPerSecond: 1e6 });
  const variants = [];
  if (f['callers-before'] !== undefined) {
    const before = await import(pathToFileURL(f['callers-before']).href);
    variants.push({ label: 'before (other build), default options', plan: before.prepareRateLimit('bench', { limiter: bucket(before) }) });
  }
  variants.push(
    { label: 'default options (IP key)', plan: prepareRateLimit('bench', { limiter: bucket() }) },
    { label: 'sync key function', plan: prepareRateLimit('bench', { limiter: bucket(), key: (req) => req.id }) },
    { label: 'plans, sync plan function', plan: prepareRateLimit('bench', { plans: { free: bucket(), pro: bucket() }, plan: (req) => req.tier, key: (req) => req.id }) },
    { label: 'countOutcome given', plan: prepareRateLimit('bench', { limiter: bucket(), countOutcome: () => true }) },
  );
  for (const v of variants) v.loop = loop();
  const req = { id: 'tenant-1', tier: 'pro' };
  const samples = variants.map(() => []);
  for (let r = -5; r < rounds; r++) {
    variants.forEach((v, i) => {
      const t = process.hrtime.bigint();
      const allowed = v.loop(v.plan, req, n);
      const ns = Number(process.hrtime.bigint() - t) / n;
      if (allowed !== n) throw new Error(`${v.label}: ${allowed} of ${n} allowed`);
      if (r >= 0) samples[i].push(ns);
    });
  }
  const base = median(samples[variants.findIndex((v) => v.label.startsWith('default'))]);
  const rows = variants.map((v, i) => [v.label, fixed(median(samples[i]), 1), `${fixed(median(samples[i]) / base, 2)}×`]);
  console.log(`callers — one decision through the adapters' plan on the memory store, hot key; ${rounds} alternating chunks of ${n}; medians`);
  console.log(formatTable(['variant', 'ns/decision', 'vs default options'], rows));
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await run(process.argv.slice(2));
