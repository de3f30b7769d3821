// Section redis/instructions: the CPU each contender costs Redis per decision, counted in machine
// instructions instead of timed, so that the figure does not move with the load of a shared machine.
// redis-server runs under valgrind's callgrind (about 50 times slower, hence small counts); each
// contender makes `--instructions-decisions` decisions with 50 in flight on one ioredis connection,
// after a warm-up, and callgrind's counter is read (dumped and zeroed) around them. The count covers
// all of Redis's own work (reading and parsing the commands, the scripts, the replies), not the
// kernel's. On a Redis that has a core to itself, decisions/s is inversely proportional to it: the
// "× naive" column is the throughput a dedicated Redis core would give relative to the naive bucket.
// Needs valgrind (callgrind_control); the section says so and returns without it.
// Keys go round k0…k(N−1): with the default 10,000 nearly every decision meets a fresh key (the warm-up's
// 200 come round once); with --instructions-keys=100 each key comes back every 100 decisions, while its
// state is empty (a limit of a million a second) but ratekeeper's key is kept alive by TTL-keep's margin.
// Flags: --instructions-decisions=N (default 1000), --instructions-in-flight=N (default 50),
// --instructions-keys=N (default 10000),
// --instructions-only=a,b (only the contenders whose label holds one of these, beside the floor).
import { onPath, startCallgrind } from './_callgrind.mjs';
import { flags, intFlag } from '../lib/args.mjs';
import { fixed, formatTable } from '../lib/table.mjs';
import { composite, single } from './_contenders.mjs';

const FLOOR = 'naive EVALSHA token bucket (floor)';

async function decideMany(decide, count, inFlight, keys) {
  let next = 0;
  async function caller() {
    while (next < count) {
      const key = `k${next++ % keys}`;
      if ((await decide(key)) !== true) throw new Error('a call was not admitted; the section would count the wrong path');
    }
  }
  await Promise.all(Array.from({ length: inFlight }, caller));
}

/** scriptCalls counts the calls that ran a script or a function (EVALSHA, EVAL, FCALL) since the last RESETSTAT. */
async function scriptCalls(client) {
  const stats = await client.info('commandstats');
  return ['evalsha', 'eval', 'fcall'].reduce((sum, c) => sum + Number(new RegExp(`cmdstat_${c}:calls=(\\d+)`).exec(stats)?.[1] ?? 0), 0);
}

export async function run(args) {
  if (!onPath('valgrind')) {
    console.log('redis/instructions: valgrind is not installed; section skipped');
    return;
  }
  const f = flags(args);
  const decisions = intFlag(f, 'instructions-decisions', 1000);
  const inFlight = intFlag(f, 'instructions-in-flight', 50);
  const keys = intFlag(f, 'instructions-keys', 10_000);
  const redis = await startCallgrind();
  const { client, read } = redis;
  try {
    const rows = [];
    const only = f['instructions-only']?.split(',');
    for (const [label, setup] of [...single(), ...composite()].filter(([label]) => only === undefined || label === FLOOR || only.some((o) => label.includes(o)))) {
      const decide = await setup(client);
      await decideMany(decide, 200, inFlight, keys);
      await client.config('RESETSTAT');
      read();
      await decideMany(decide, decisions, inFlight, keys);
      const perDecision = read() / decisions;
      rows.push({ label, perDecision, calls: (await scriptCalls(client)) / decisions });
    }
    const floor = rows.find((r) => r.label === FLOOR)?.perDecision ?? Number.NaN;
    console.log(`redis-server under callgrind, one ioredis connection, ${inFlight} in flight, ${decisions} decisions per contender on ${keys} keys`);
    console.log(
      formatTable(
        ['contender', 'Redis instructions per decision', 'script calls per decision', '× naive (dedicated Redis core)'],
        rows.map((r) => [r.label, `${fixed(r.perDecision / 1000, 1)} k`, fixed(r.calls, 2), fixed(floor / r.perDecision, 2)]),
      ),
    );
  } finally {
    redis.stop();
  }
}
