// The Worker the "durable-object" section runs in workerd (bundled by esbuild, started by Miniflare):
// GET /?store=memory|batched|unbatched&n=N&c=C runs N decisions on one key, C callers at once (each
// awaiting its previous decision), and answers { allowed, samples }: per-decision times in ms, each
// the wall time of CHUNK decisions in a row of one caller ÷ CHUNK (workerd's clock moves only at I/O
// and in whole ms, so single decisions cannot be timed; the memory store does no I/O: no samples).
import { MemoryStore, TokenBucketLimiter } from '@ratekeeper/core';
import { DurableObjectStore, RateLimiterObject } from '@ratekeeper/durable-object';

export { RateLimiterObject };

const CHUNK = 10;
let run = 0;

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const kind = url.searchParams.get('store');
    const n = Number(url.searchParams.get('n'));
    const c = Number(url.searchParams.get('c'));
    const store = kind === 'memory' ? new MemoryStore() : new DurableObjectStore({ namespace: env.LIMITS, batch: kind === 'batched', prefix: `bench${run++}:` });
    const limiter = new TokenBucketLimiter({ capacity: 1e9, refillPerSecond: 1e6, store });
    const samples = [];
    let allowed = 0;
    const caller = async (count) => {
      for (let i = 0; i < count; i += CHUNK) {
        const t = Date.now();
        for (let j = 0; j < CHUNK && i + j < count; j++) if ((await (url.searchParams.get('peek') ? limiter.peek('hot') : limiter.consume('hot'))).allowed) allowed++;
        if (kind !== 'memory') samples.push((Date.now() - t) / CHUNK);
      }
    };
    await Promise.all(Array.from({ length: c }, () => caller(Math.floor(n / c))));
    return Response.json({ allowed, samples, rpcs: store.batching?.rpcs ?? 0 });
  },
};
