// Section redis/sizing: how many Redis Cluster shards and how many application-server cores carry a
// target decision rate, computed from what this run measures rather than from a rule of thumb.
//
// Measured here (the same method as redis/stores: one local redis-server, one ioredis connection, 50
// calls in flight, Redis's CPU from INFO CPU deltas, this process's from process.cpuUsage): Redis CPU µs
// and client CPU µs per token-bucket decision, batched (the default) and with `batch: false`.
// Computed: a shard runs Lua on one thread, so it carries at most 1e6 / redisCpuUs decisions per
// second; at `--sizing-headroom` (default 0.5: plan every core to half its capacity, leaving room for
// bursts, failover and replication) the target needs ⌈target × redisCpuUs / (1e6 × headroom)⌉ shards.
// The client side needs target × clientCpuUs / (1e6 × headroom) cores of app-server CPU for the
// limiter's own work (the HTTP work of serving the requests comes on top).
// Caveat printed with the table: on a cluster, batching groups only calls of one hash slot, i.e. of one
// key, so a cluster of many distinct keys gets the unbatched figure; a single primary gets the batched one.
//
// Flags: --sizing-target=N (1000000), --sizing-headroom=F (0.5), plus redis/stores' --redis-rounds and --redis-ms.
import { TokenBucketLimiter } from '@ratekeeper/core';
import { RedisStore } from '@ratekeeper/redis';
import { Redis } from 'ioredis';
import { flags, intFlag } from '../lib/args.mjs';
import { fixed, formatTable, grouped } from '../lib/table.mjs';
import { measureAll } from './_measure.mjs';
import { startRedis } from './_server.mjs';

const LIMIT = 1_000_000_000;

export async function run(args) {
  const f = flags(args);
  const target = Number(f['sizing-target'] ?? 1_000_000);
  const headroom = Number(f['sizing-headroom'] ?? 0.5);
  const server = await startRedis();
  const client = new Redis({ port: server.port, host: '127.0.0.1' });
  try {
    const decide = (store) => {
      const limiter = new TokenBucketLimiter({ capacity: LIMIT, refillPerSecond: 1_000_000, store });
      return (k) => limiter.consume(k).then((d) => d.allowed && d.failure === undefined);
    };
    const contenders = [
      ['batched (default)', decide(new RedisStore({ client, timeoutMs: 1000 }))],
      ['batch: false', decide(new RedisStore({ client, timeoutMs: 1000, batch: false, denyCache: false }))],
    ];
    const results = await measureAll(client, contenders, { rounds: intFlag(f, 'redis-rounds', 3), ms: intFlag(f, 'redis-ms', 1000), inFlight: 50, sequentialCalls: 500 });
    const rows = [...results].map(([label, r]) => {
      const perShard = 1e6 / r.cpuUsPerDecision;
      const shards = Math.ceil((target * r.cpuUsPerDecision) / (1e6 * headroom));
      const cores = (target * r.clientCpuUsPerDecision) / (1e6 * headroom);
      return [label, fixed(r.cpuUsPerDecision, 2), grouped(perShard), String(shards), fixed(r.clientCpuUsPerDecision, 2), fixed(cores, 1)];
    });
    console.log(`sizing for ${grouped(target)} token-bucket decisions/s at ${Math.round(headroom * 100)} % planned utilisation (figures measured in this run)`);
    console.log(
      formatTable(['mode', 'Redis CPU µs/decision', 'decisions/s per shard at 100 %', 'shards needed', 'client CPU µs/decision', 'app-server cores for the limiter'], rows),
    );
    console.log('A cluster of many distinct keys batches per slot (per key), so plan it on the `batch: false` row; a single primary (or a few hot keys) gets the batched row.');
  } finally {
    client.disconnect();
    server.stop();
  }
}
