// The tRPC middleware's added cost per call, beside an empty middleware, in one process: a tRPC v11
// router on its Node HTTP handler (createHTTPHandler, what the standalone and Express adapters run),
// called in process with a fresh request per call (lib/in-process.mjs) for GET /hello: `bare` (the
// procedure alone), `empty middleware` (`procedure.use(({ next }) => next())`: what any middleware
// costs) and `ratekeeper` (`procedure.use(rateLimit({ … }))`, a token bucket no call exhausts, keyed
// by the request's address). Reported: ns per call, each one's added µs over `bare`, and ratekeeper's
// over the empty middleware (median [95 % interval] of the per-round differences).
//
//   node src/run-all.mjs trpc [--trpc-calls=N] [--trpc-rounds=N]
import { initTRPC } from '@trpc/server';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { rateLimit } from '@ratekeeper/trpc';
import { flags, intFlag } from './lib/args.mjs';
import { difference, interleaved, nodeCall } from './lib/in-process.mjs';
import { median } from './lib/stats.mjs';
import { fixed, formatTable } from './lib/table.mjs';

/** handlerOf answers the Node handler of a router whose `hello` goes through the variant's middleware. */
function handlerOf(variant) {
  const t = initTRPC.context().create();
  let procedure = t.procedure;
  if (variant === 'empty middleware') procedure = procedure.use(({ next }) => next());
  if (variant === 'ratekeeper') procedure = procedure.use(rateLimit({ capacity: 1_000_000_000_000, refillPerSecond: 1_000_000 }));
  const router = t.router({ hello: procedure.query(() => 'world') });
  return createHTTPHandler({ router, createContext: ({ req, res }) => ({ req, res }) });
}

export async function run(args) {
  const f = flags(args);
  const calls = intFlag(f, 'trpc-calls', 20_000);
  const rounds = intFlag(f, 'trpc-rounds', 7);
  const variants = new Map(['bare', 'empty middleware', 'ratekeeper'].map((v) => [v, nodeCall(handlerOf(v), '/hello')]));
  const samples = await interleaved(variants, { calls, rounds });
  console.log(
    `\ntrpc: the middleware's added CPU time per call, tRPC v11 (Node HTTP handler), in process on Node ${process.version}: median of ${rounds} interleaved rounds of ${calls} calls (${new Date().toISOString()})`,
  );
  const rows = [...variants.keys()].map((v) => [
    v,
    fixed(median(samples.get(v)) / 1000, 2),
    v === 'bare' ? '' : difference(samples, v, 'bare').text,
    v === 'ratekeeper' ? difference(samples, v, 'empty middleware').text : '',
  ]);
  console.log(formatTable(['variant', 'CPU µs per call', '− bare, µs [95% CI]', '− empty middleware, µs [95% CI]'], rows));
  const ratio = samples.get('ratekeeper').map((x, r) => x / samples.get('empty middleware')[r]);
  console.log(`per call, ratekeeper / empty middleware: ${fixed(median(ratio), 2)}× (median of the per-round ratios)`);
}
