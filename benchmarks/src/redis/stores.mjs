// Section redis/stores: one limit per decision on one local redis-server, every contender on the same
// single ioredis connection: sequential latency, decisions/s with 50 calls in flight, and Redis CPU
// per decision (and this process's CPU per decision), beside the two floors (a bare PING loop and a
// naive single-EVALSHA token bucket).
// Flags: --redis-rounds=N (default 5), --redis-ms=N per throughput phase (default 1000),
// --redis-in-flight=N (default 50).
import { Redis } from 'ioredis';
import { flags, intFlag } from '../lib/args.mjs';
import { median, medianInterval } from '../lib/stats.mjs';
import { fixed, formatTable, grouped } from '../lib/table.mjs';
import { single } from './_contenders.mjs';
import { measureAll } from './_measure.mjs';
import { startRedis } from './_server.mjs';

/** runSection is shared with redis/composite: it measures `list` and prints the table against `floorLabel`. */
export async function runSection(args, list, floorLabel) {
  const f = flags(args);
  const options = {
    rounds: intFlag(f, 'redis-rounds', 5),
    ms: intFlag(f, 'redis-ms', 1000),
    inFlight: intFlag(f, 'redis-in-flight', 50),
    sequentialCalls: 2000,
  };
  const server = await startRedis();
  const client = new Redis({ port: server.port, host: '127.0.0.1' });
  try {
    const contenders = [];
    for (const [label, setup] of list) contenders.push([label, await setup(client)]);
    const results = await measureAll(client, contenders, options);
    const floor = median(results.get(floorLabel).perSecond);
    const rows = [...results].map(([label, r]) => {
      const [low, high] = medianInterval(r.perSecond);
      const perSecond = median(r.perSecond);
      return [
        label,
        fixed(r.seqMedianUs, 0),
        fixed(r.seqP99Us, 0),
        grouped(perSecond),
        `${grouped(low)}–${grouped(high)}`,
        fixed(perSecond / floor, 2),
        fixed(r.cpuUsPerDecision, 1),
        fixed(r.clientCpuUsPerDecision, 1),
      ];
    });
    console.log(`redis-server on 127.0.0.1:${server.port}, one ioredis connection, ${options.inFlight} in flight, ${options.rounds} rounds × ${options.ms} ms, medians`);
    console.log(formatTable(['contender', 'seq µs p50', 'seq µs p99', `decisions/s`, 'range', `× ${floorLabel.split(' (')[0]}`, 'Redis CPU µs', 'Node CPU µs'], rows));
    return results;
  } finally {
    client.disconnect();
    server.stop();
  }
}

export async function run(args) {
  await runSection(args, single(), 'naive EVALSHA token bucket (floor)');
}
