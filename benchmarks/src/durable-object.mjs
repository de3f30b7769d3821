// Section "durable-object" (issue 21): decisions from a Worker in workerd (Miniflare 3, its July 2025
// workerd) on one hot key, through @ratekeeper/durable-object with batching (the default) and without,
// beside the in-isolate memory store. One request to the Worker runs N decisions with C callers at
// once; decisions/s is N ÷ the request's wall time as Node sees it (so it includes one HTTP request,
// negligible at these N), p50 is per decision inside the Worker (lib/durable-object-child.mjs says how).
// Everything runs on this machine: the "round trip" to the object is workerd's local RPC, not a network,
// so the figures are a floor for the store's own cost, not what a Worker calling a far object sees.
//
// Flags: --do-n=N (2000 decisions per request), --do-rounds=N (5 requests per row; the median row).
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { flags, intFlag } from './lib/args.mjs';
import { median } from './lib/stats.mjs';
import { fixed, formatTable, grouped } from './lib/table.mjs';

const entry = fileURLToPath(new URL('./lib/durable-object-child.mjs', import.meta.url));

export async function run(args) {
  const f = flags(args);
  const n = intFlag(f, 'do-n', 2_000);
  const rounds = intFlag(f, 'do-rounds', 5);
  const bundle = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser', 'import'],
    external: ['cloudflare:workers'],
    logLevel: 'silent',
  });
  const mf = new Miniflare({ modules: true, script: bundle.outputFiles[0].text, compatibilityDate: '2025-07-01', durableObjects: { LIMITS: 'RateLimiterObject' } });
  const rows = [];
  try {
    await mf.ready;
    for (const c of [1, 50]) {
      for (const store of ['memory', 'batched', 'unbatched']) {
        const rates = [];
        const p50s = [];
        let rpcs = 0;
        for (let r = -1; r < rounds; r++) {
          const t = performance.now();
          const answer = await (await mf.dispatchFetch(`http://bench/?store=${store}&n=${n}&c=${c}`)).json();
          const ms = performance.now() - t;
          if (answer.allowed !== Math.floor(n / c) * c) throw new Error(`${store}: ${answer.allowed} allowed`);
          if (r < 0) continue; // warm-up
          rates.push((answer.allowed / ms) * 1000);
          if (answer.samples.length > 0) p50s.push(median(answer.samples));
          rpcs = answer.rpcs;
        }
        const label = store === 'memory' ? 'memory store, in the isolate' : `DurableObjectStore, ${store}`;
        rows.push([
          label,
          String(c),
          grouped(median(rates)),
          p50s.length > 0 ? fixed(median(p50s), 3) : '—',
          store === 'memory' ? '—' : fixed(rpcs === 0 ? Number.NaN : n / rpcs, 1),
        ]);
      }
    }
  } finally {
    await mf.dispose();
  }
  console.log(`durable-object — ${n} decisions on one key per Worker request, C callers at once; medians of ${rounds} requests (after one warm-up)`);
  console.log(formatTable(['store', 'C', 'decisions/s', 'p50 ms/decision', 'calls per RPC'], rows));
}
