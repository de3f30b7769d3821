// Section redis/lease: lease mode (@ratekeeper/redis LeasedLimiter) against one call per decision, on
// ONE hot key, every contender on the same single ioredis connection (the method of redis/stores:
// sequential latency, decisions/s with 50 calls in flight, Redis and client CPU per decision, medians
// over interleaved rounds). Rows: the naive single-EVALSHA bucket on the hot key (the floor of
// redis/stores), ratekeeper's token bucket one call per decision (batched, the default; and
// `batch: false`), and the same bucket wrapped in a LeasedLimiter of 100 and of 1,000 units.
//
// The admitted total must be exact, not only fast: each ratekeeper contender's bucket (capacity 10^9,
// refill one token per 1,000 s, so less than one token refills during the run) is read back after the run, once the
// leased limiters are closed (their unspent units given back), and must hold exactly 10^9 − the
// decisions it admitted. The section prints that check per row and throws if any row is off.
// Flags: --redis-rounds=N (default 3), --redis-ms=N per throughput phase (default 1000), --redis-in-flight=N (50).
import { TokenBucketLimiter } from '@ratekeeper/core';
import { LeasedLimiter, RedisStore } from '@ratekeeper/redis';
import { Redis } from 'ioredis';
import { flags, intFlag } from '../lib/args.mjs';
import { median, medianInterval } from '../lib/stats.mjs';
import { fixed, formatTable, grouped } from '../lib/table.mjs';
import { NAIVE_BUCKET } from './_contenders.mjs';
import { measureAll } from './_measure.mjs';
import { startRedis } from './_server.mjs';

const LIMIT = 1_000_000_000;
const HOT = 'hot';

/** bucket is a contender on its own policy name: decide(key) ignores the key and asks for the hot one. */
function bucket(name, store, units) {
  const inner = new TokenBucketLimiter({ capacity: LIMIT, refillPerSecond: 0.001, store, name });
  const limiter = units === undefined ? inner : new LeasedLimiter(inner, { units });
  const row = { name, limiter, admitted: 0 };
  row.decide = () =>
    limiter.consume(HOT).then((d) => {
      const ok = d.allowed && d.failure === undefined;
      if (ok) row.admitted++;
      return ok;
    });
  return row;
}

export async function run(args) {
  const f = flags(args);
  const options = { rounds: intFlag(f, 'redis-rounds', 3), ms: intFlag(f, 'redis-ms', 1000), inFlight: intFlag(f, 'redis-in-flight', 50), sequentialCalls: 2000 };
  const server = await startRedis();
  const client = new Redis({ port: server.port, host: '127.0.0.1' });
  try {
    const sha = await client.script('LOAD', NAIVE_BUCKET);
    const store = new RedisStore({ client, timeoutMs: 1000 });
    const unbatched = new RedisStore({ client, timeoutMs: 1000, batch: false, denyCache: false });
    const rows = [
      ['ratekeeper token bucket, one call per decision', bucket('one-call', store)],
      ['ratekeeper token bucket, one call, batch: false', bucket('one-call-unbatched', unbatched)],
      ['ratekeeper token bucket, lease of 100 units', bucket('lease-100', store, 100)],
      ['ratekeeper token bucket, lease of 1,000 units', bucket('lease-1000', store, 1000)],
    ];
    const floorLabel = 'naive EVALSHA token bucket (floor)';
    const contenders = [
      [floorLabel, () => client.evalsha(sha, 1, `naive:${HOT}`, Date.now(), 0.001, LIMIT * 0.001).then((r) => r === 1)],
      ...rows.map(([label, row]) => [label, row.decide]),
    ];
    const results = await measureAll(client, contenders, options);
    const exact = new Map();
    for (const [label, row] of rows) {
      if (row.limiter instanceof LeasedLimiter) await row.limiter.close();
      const reader = new TokenBucketLimiter({ capacity: LIMIT, refillPerSecond: 0.001, store: new RedisStore({ client, timeoutMs: 1000, denyCache: false }), name: row.name });
      const peek = await reader.peek(HOT);
      const tokens = peek.allowed ? peek.remaining + 1 : 0;
      exact.set(label, { ok: tokens === LIMIT - row.admitted, admitted: row.admitted, taken: LIMIT - tokens });
    }
    const floor = median(results.get(floorLabel).perSecond);
    const oneCall = median(results.get(rows[0][0]).perSecond);
    const table = [...results].map(([label, r]) => {
      const [low, high] = medianInterval(r.perSecond);
      const perSecond = median(r.perSecond);
      const e = exact.get(label);
      return [
        label,
        fixed(r.seqMedianUs, 1),
        fixed(r.seqP99Us, 0),
        grouped(perSecond),
        `${grouped(low)}–${grouped(high)}`,
        fixed(perSecond / floor, 2),
        fixed(perSecond / oneCall, 2),
        fixed(r.cpuUsPerDecision, 2),
        fixed(r.clientCpuUsPerDecision, 2),
        e === undefined ? '' : `${e.ok ? 'yes' : 'NO'} (${grouped(e.admitted)} = ${grouped(e.taken)})`,
      ];
    });
    console.log(
      `one hot key; redis-server on 127.0.0.1:${server.port}, one ioredis connection, ${options.inFlight} in flight, ${options.rounds} rounds × ${options.ms} ms, medians`,
    );
    console.log(
      formatTable(
        ['contender', 'seq µs p50', 'seq µs p99', 'decisions/s', 'range', '× naive', '× one call', 'Redis CPU µs', 'Node CPU µs', 'exact: admitted = taken from Redis'],
        table,
      ),
    );
    const off = [...exact].filter(([, e]) => !e.ok);
    if (off.length > 0) throw new Error(`admitted total not exact for ${off.map(([label]) => label).join(', ')}`);
  } finally {
    client.disconnect();
    server.stop();
  }
}
