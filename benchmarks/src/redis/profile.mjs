// Section redis/profile: where Redis's instructions go inside one decision, by function. redis-server
// runs under valgrind's callgrind; each path makes `--profile-decisions` token-bucket decisions with 50
// in flight on one ioredis connection (after a warm-up, the counters zeroed), then callgrind's dump is
// read with callgrind_annotate (inclusive counts) and split per decision into:
//   - all          everything redis-server did (reading commands, running them, writing replies);
//   - Lua          lua_pcall: the script or function body, with what it calls;
//   - redis.call   the commands the Lua ran (call'2: TIME, GET, SET);
//   - strtod       glibc's strtod, which Lua's tonumber calls on every number sent as text;
//   - in and out   luaCallFunction less lua_pcall: the keys and arguments made into Lua tables, the
//                  reply converted back (once per call: per batch when batched).
// Paths: ratekeeper batched on 100 keys (a key comes back while alive: TTL-keep keeps it), ratekeeper
// `batch: false` on 10,000 keys (fresh keys, one call each), and the naive EVALSHA bucket on 10,000.
// Needs valgrind and callgrind_annotate; the section says so and returns without them.
// Flags: --profile-decisions=N (default 2000).
import { execFileSync } from 'node:child_process';
import { TokenBucketLimiter } from '@ratekeeper/core';
import { RedisStore } from '@ratekeeper/redis';
import { flags, intFlag } from '../lib/args.mjs';
import { fixed, formatTable } from '../lib/table.mjs';
import { onPath, startCallgrind } from './_callgrind.mjs';
import { NAIVE_BUCKET } from './_contenders.mjs';

const IN_FLIGHT = 50;

/** PATHS: [label, keys, setup(client) → decide(key)], each on a fresh server. */
const PATHS = [
  [
    'ratekeeper token bucket, batched, 100 keys',
    100,
    (client) => {
      const limiter = new TokenBucketLimiter({ capacity: 1e9, refillPerSecond: 1e6, store: new RedisStore({ client }) });
      return (key) => limiter.consume(key);
    },
  ],
  [
    'ratekeeper token bucket, batch: false, 10,000 keys',
    10_000,
    (client) => {
      const limiter = new TokenBucketLimiter({ capacity: 1e9, refillPerSecond: 1e6, store: new RedisStore({ client, batch: false }) });
      return (key) => limiter.consume(key);
    },
  ],
  [
    'naive EVALSHA token bucket, 10,000 keys',
    10_000,
    async (client) => {
      const sha = await client.script('LOAD', NAIVE_BUCKET);
      return (key) => client.evalsha(sha, 1, key, Date.now(), 0.001, 1e9 * 0.001);
    },
  ],
];

async function decideMany(decide, count, keys) {
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < count) await decide(`k${next++ % keys}`);
    }),
  );
}

/** inclusive answers callgrind_annotate's inclusive instructions by function name (summed over files) and the total. */
function inclusive(file) {
  const text = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const byName = new Map();
  for (const m of text.matchAll(/^\s*([\d,]+) \([^)]*\)\s+[^:\s]*:(\S+)/gm)) {
    const name = m[2];
    byName.set(name, (byName.get(name) ?? 0) + Number(m[1].replaceAll(',', '')));
  }
  const total = Number(/^([\d,]+) \([^)]*\)\s+PROGRAM TOTALS/m.exec(text)?.[1].replaceAll(',', ''));
  return { byName, total };
}

/** exclusive answers the instructions spent in functions whose name holds `part` (their own code only). */
function exclusive(file, part) {
  const text = execFileSync('callgrind_annotate', ['--inclusive=no', '--threshold=100', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  let sum = 0;
  for (const m of text.matchAll(/^\s*([\d,]+) \([^)]*\)\s+(\S+)/gm)) if (m[2].includes(part)) sum += Number(m[1].replaceAll(',', ''));
  return sum;
}

async function profile(label, keys, setup, decisions) {
  const redis = await startCallgrind();
  try {
    const decide = await setup(redis.client);
    await decideMany(decide, 300, keys);
    redis.read();
    await decideMany(decide, decisions, keys);
    redis.read();
    const file = redis.lastDump();
    const { byName, total } = inclusive(file);
    const per = (n) => `${fixed((n ?? 0) / decisions / 1000, 1)} k`;
    const lua = byName.get('lua_pcall') ?? 0;
    const commands = byName.get("call'2") ?? 0;
    const io = (byName.get('luaCallFunction') ?? 0) - lua;
    const strtod = exclusive(file, 'strtod');
    return [label, per(total), per(lua), per(commands), per(strtod), per(io)];
  } finally {
    redis.stop();
  }
}

export async function run(args) {
  if (!onPath('valgrind') || !onPath('callgrind_annotate')) {
    console.log('redis/profile: valgrind (callgrind_annotate) is not installed; section skipped');
    return;
  }
  const decisions = intFlag(flags(args), 'profile-decisions', 2000);
  const rows = [];
  for (const [label, keys, setup] of PATHS) rows.push(await profile(label, keys, setup, decisions));
  console.log(`redis-server under callgrind, one ioredis connection, ${IN_FLIGHT} in flight, ${decisions} decisions per path; Redis instructions per decision, inclusive`);
  console.log(formatTable(['path', 'all', 'Lua (lua_pcall)', 'redis.call inside', 'strtod', 'in and out (luaCallFunction − lua_pcall)'], rows));
}
