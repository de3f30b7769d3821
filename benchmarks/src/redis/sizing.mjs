// Section redis/sizing: how many Redis Cluster shards and how many application-server cores carry a
// target decision rate, computed from what this run measures rather than from a rule of thumb.
//
// Measured here (the same method as redis/stores: one local redis-server, one ioredis connection, 50
// calls in flight, Redis's CPU from INFO CPU deltas, this process's from process.cpuUsage, the calls
// each store sends counted at its client): Redis CPU µs, client CPU µs and round trips per
// token-bucket decision, one call per decision over 10,000 keys batched (the default) and with
// `batch: false`; and lease mode (LeasedLimiter of k = `--sizing-lease-units` units, default 100) on
// one hot key, and on the 10,000 keys, each too cold to spend a lease.
// Computed (./_plan.mjs): shards, the most decisions/s one key can get, and app-server cores, at
// `--sizing-headroom` (default 0.5: every core planned to half its capacity, leaving room for bursts,
// failover and replication).
//
// Assumptions printed with the table. On a cluster, batching groups only calls of one hash slot, i.e.
// of one key, so a cluster of many distinct keys gets the `batch: false` figure. A lease saves only on
// a key hot enough that each process spends k units within the lease's ttlMs (k·1000/ttlMs decisions/s
// per process); on a cold key it costs a take and a return instead of one call. So the lease plan
// leases only the hot keys' limiter and decides the rest one call each (`batch: false`), with
// `--sizing-hot-share` (default 0.5) of the decisions on hot keys; a second table shows the plan at
// other shares.
//
// Flags: --sizing-target=N (1000000), --sizing-headroom=F (0.5), --sizing-lease-units=K (100),
// --sizing-hot-share=F (0.5), plus redis/stores' --redis-rounds and --redis-ms.
import { TokenBucketLimiter } from '@ratekeeper/core';
import { DEFAULT_LEASE_TTL_MS, LeasedLimiter, RedisStore } from '@ratekeeper/redis';
import { Redis } from 'ioredis';
import { flags, fractionFlag, intFlag } from '../lib/args.mjs';
import { fixed, formatTable, grouped } from '../lib/table.mjs';
import { measureAll } from './_measure.mjs';
import { mix, plan } from './_plan.mjs';
import { startRedis } from './_server.mjs';

const LIMIT = 1_000_000_000;
const SHARES = [0, 0.25, 0.5, 0.75, 0.9, 1];
const percent = (share) => `${Math.round(share * 100)} %`;

/** counted wraps `client` in the one method a RedisStore calls, counting the calls (round trips). */
function counted(client) {
  const counter = { calls: 0, call: (command, ...args) => (counter.calls++, client.call(command, ...args)) };
  return counter;
}

/** contender is [label, decide, roundTrips] for a bucket on its own counted store, leased when `units` is given. */
function contender(label, name, client, storeOptions, { units, hot } = {}) {
  const counter = counted(client);
  const store = new RedisStore({ client: counter, timeoutMs: 1000, ...storeOptions });
  const bucket = new TokenBucketLimiter({ capacity: LIMIT, refillPerSecond: 1_000_000, store, name });
  const limiter = units === undefined ? bucket : new LeasedLimiter(bucket, { units });
  const decide = (k) => limiter.consume(hot ?? k).then((d) => d.allowed && d.failure === undefined);
  return { limiter, entry: [label, decide, () => counter.calls] };
}

export async function run(args) {
  const f = flags(args);
  const target = intFlag(f, 'sizing-target', 1_000_000);
  const headroom = fractionFlag(f, 'sizing-headroom', 0.5, { zero: false });
  const units = intFlag(f, 'sizing-lease-units', 100);
  const hotShare = fractionFlag(f, 'sizing-hot-share', 0.5, { zero: true });
  const server = await startRedis();
  const client = new Redis({ port: server.port, host: '127.0.0.1' });
  const labels = { batched: 'batched (default)', single: 'batch: false', hot: `lease k=${units}, one hot key`, cold: `lease k=${units}, 10,000 cold keys` };
  try {
    const contenders = [
      contender(labels.batched, 'batched', client, {}),
      contender(labels.single, 'single', client, { batch: false, denyCache: false }),
      contender(labels.hot, 'lease-hot', client, {}, { units, hot: 'hot' }),
      contender(labels.cold, 'lease-cold', client, {}, { units }),
    ];
    const results = await measureAll(
      client,
      contenders.map((c) => c.entry),
      { rounds: intFlag(f, 'redis-rounds', 3), ms: intFlag(f, 'redis-ms', 1000), inFlight: 50, sequentialCalls: 500 },
    );
    for (const c of contenders) if (c.limiter instanceof LeasedLimiter) await c.limiter.close();
    const cost = (label) => {
      const r = results.get(label);
      return { redisCpuUs: r.cpuUsPerDecision, clientCpuUs: r.clientCpuUsPerDecision, roundTrips: r.roundTripsPerDecision };
    };
    const leasePlan = mix(cost(labels.hot), hotShare, cost(labels.single));
    // The plan's key ceiling is its hot keys' (leased): its cold keys are by definition far below it.
    const row = (label, c, keyCost = c) => {
      const p = plan(c, target, headroom);
      return [
        label,
        fixed(c.redisCpuUs, 2),
        fixed(c.roundTrips, 3),
        grouped(p.perShard),
        grouped(plan(keyCost, target, headroom).keyCeiling),
        String(p.shards),
        fixed(c.clientCpuUs, 2),
        fixed(p.cores, 1),
      ];
    };
    const hotLimit = (units * 1000) / DEFAULT_LEASE_TTL_MS;
    console.log(`sizing for ${grouped(target)} token-bucket decisions/s at ${percent(headroom)} planned utilisation (figures measured in this run)`);
    console.log(
      formatTable(
        [
          'mode',
          'Redis CPU µs/decision',
          'round trips/decision',
          'decisions/s per shard at 100 %',
          `one key's ceiling at ${percent(headroom)}`,
          'shards needed',
          'client CPU µs/decision',
          'app-server cores for the limiter',
        ],
        [
          ...Object.values(labels).map((label) => row(label, cost(label))),
          row(`plan: lease k=${units} on hot keys (${percent(hotShare)} of decisions), the rest batch: false`, leasePlan, cost(labels.hot)),
        ],
      ),
    );
    const single = cost(labels.single);
    console.log(
      `lease mode by share of decisions on hot keys (k=${units} on the hot keys, batch: false on the rest), shards needed: ${SHARES.map((s) => `${percent(s)} → ${plan(mix(cost(labels.hot), s, single), target, headroom).shards}`).join(', ')}`,
    );
    console.log('A cluster of many distinct keys batches per slot (per key), so plan it on the `batch: false` row; a single primary (or a few hot keys) gets the batched row.');
    console.log(
      `A key is hot when each app-server process spends a lease of k=${units} within its ttlMs (${DEFAULT_LEASE_TTL_MS} ms): at least ${grouped(hotLimit)} decisions/s per process on that key; a colder key costs a take and a return instead of one call (the cold-keys row), so lease only the hot keys' limiter. On a hot key a lease saves ${fixed(single.roundTrips - cost(labels.hot).roundTrips, 3)} round trips per decision against one call each (${fixed(cost(labels.batched).roundTrips - cost(labels.hot).roundTrips, 3)} against the batched row); across N processes it under-admits at most N·k units per hot key (N·${units}).`,
    );
  } finally {
    client.disconnect();
    server.stop();
  }
}
