// Section redis/script-parts: where Redis's time goes inside ratekeeper's scripts. Each script is run
// whole and with one piece taken out (text replaced in its source), on one local redis-server, and
// Redis's own time inside EVALSHA per decision is read from INFO commandstats (the command's execution,
// without reading the request or writing the reply). A piece's cost is the difference to the whole.
// Decisions admit (a limit of a billion) and their state is empty a millisecond later, as in
// redis/stores: the naive bucket's keys expire then, ratekeeper's 0.9 s later (TTL-keep's margin), so
// a key comes round again before it expires and most admissions keep its TTL.
//   - the batch script, 25 token-bucket calls per batch (all keys different), 10,000 keys;
//   - the one-call token-bucket script (server time), 50 calls in flight, beside the naive bucket.
// A variant with a piece taken out decides wrongly on purpose; only its time is read.
// With --parts-instructions the server runs under valgrind's callgrind and each variant's Redis
// instructions per decision are counted instead (all of Redis's work for the call, arguments and reply
// included; no machine load moves the count; one round of 2,000 decisions by default).
// Flags: --parts-rounds=N (3; the median is printed), --parts-decisions=N (100000 per variant),
// --parts-instructions.
import { Redis } from 'ioredis';
import { batchScript } from '../../../packages/redis/dist/esm/lua/batch-script.js';
import { singleScript } from '../../../packages/redis/dist/esm/lua/scripts.js';
import { flags, intFlag } from '../lib/args.mjs';
import { median } from '../lib/stats.mjs';
import { fixed, formatTable } from '../lib/table.mjs';
import { onPath, startCallgrind } from './_callgrind.mjs';
import { NAIVE_BUCKET } from './_contenders.mjs';
import { startRedis } from './_server.mjs';

const BATCH = 25;
const KEYS = 10_000;
const key = (i) => `rk:{k${i % KEYS}}`;

/** without answers `source` with each [from, to] replaced; a missing piece is an error (the script changed). */
function without(source, pairs) {
  let s = source;
  for (const [from, to] of pairs) {
    if (!s.includes(from)) throw new Error(`redis/script-parts: the script no longer contains ${from}`);
    s = s.split(from).join(to);
  }
  return s;
}

const batched = batchScript(false).source;
const PUT_CHECK = 'if expiry and server + ms <= expiry then';
const PUT_SETS = ["redis.call('SET', key, state .. pack('<dB', expiry, 101), 'KEEPTTL')", "redis.call('SET', key, state .. pack('<dB', server + ms - 1, 101), 'PX', text(ms))"];
const BATCH_VARIANTS = [
  ['batch script, whole', batched],
  ['  without TTL-keep (SET … PX each time)', without(batched, [[PUT_CHECK, 'if false then']])],
  [
    '  without the SET',
    without(
      batched,
      PUT_SETS.map((set) => [set, '']),
    ),
  ],
  ['  without the GET', without(batched, [["if not repeats then return untail(redis.pcall('GET', key)) end", 'if not repeats then return false end']])],
  [
    '  without the step',
    without(batched, [
      [
        'fine, ok, remaining, retry, reset, ttl, state = pcall(step, raw, now, cost, gfirst[g][1], gsecond[g][1])',
        "fine, ok, remaining, retry, reset, ttl, state = true, true, 5, 0, 7, 1, 'abcdefgh'",
      ],
    ]),
  ],
  ['  without the compact reply', without(batched, [['local short = ok and compact(remaining, retry, reset)', 'local short = 1']])],
];

const single = singleScript('token-bucket', false).source;
const SINGLE_VARIANTS = [
  ['one-call script, whole', single],
  [
    '  without TIME',
    without(single, [["local clock = redis.call('TIME')\nlocal server = tonumber(clock[1]) * 1000 + floor(tonumber(clock[2]) / 1000)", `local server = ${Date.now()}`]]),
  ],
  ['  without TTL-keep (SET … PX on every call)', without(single, [[PUT_CHECK, 'if false then']])],
  [
    '  without the step (nor its parameters)',
    without(single, [
      [
        'local ok, remaining, retry, reset, ttl, state = tb(raw, now, cost, tonumber(ARGV[first]), tonumber(ARGV[first + 1]))',
        "local ok, remaining, retry, reset, ttl, state = true, 5, 0, 7, 1, 'abcdefgh'",
      ],
    ]),
  ],
  ['naive EVALSHA token bucket', NAIVE_BUCKET],
];

/** evalshaUs is Redis's time inside EVALSHA per decision, from INFO commandstats. */
async function evalshaUs(client, decisions) {
  const stats = await client.info('commandstats');
  const m = /cmdstat_evalsha:calls=\d+,usec=(\d+)/.exec(stats);
  return Number(m?.[1] ?? Number.NaN) / decisions;
}

async function runBatch(client, source, n, count) {
  await client.flushall();
  const sha = await client.script('LOAD', source);
  await client.config('RESETSTAT');
  count?.read();
  const spec = ['1', '1', '1', '1000000000', '0.001'];
  const deadline = String(Date.now() + 3_600_000);
  for (let done = 0; done < n; done += BATCH) {
    const keys = Array.from({ length: BATCH }, (_, i) => key(done + i));
    await client.evalsha(sha, BATCH, ...keys, ...spec, ...Array(BATCH).fill('1'), deadline);
  }
  return count === undefined ? evalshaUs(client, n) : count.read() / n;
}

async function runSingle(client, source, n, naive, count) {
  await client.flushall();
  const sha = await client.script('LOAD', source);
  await client.config('RESETSTAT');
  count?.read();
  const deadline = String(Date.now() + 3_600_000);
  for (let done = 0; done < n; done += 50) {
    const calls = [];
    for (let i = done; i < done + 50; i++) {
      calls.push(naive ? client.evalsha(sha, 1, key(i), Date.now(), 0.001, 1e9 * 0.001) : client.evalsha(sha, 1, key(i), '1', '1000000000', '0.001', deadline));
    }
    await Promise.all(calls);
  }
  return count === undefined ? evalshaUs(client, n) : count.read() / n;
}

export async function run(args) {
  const f = flags(args);
  const instructions = f['parts-instructions'] !== undefined;
  if (instructions && !onPath('valgrind')) {
    console.log('redis/script-parts: --parts-instructions needs valgrind, which is not installed; section skipped');
    return;
  }
  const rounds = intFlag(f, 'parts-rounds', instructions ? 1 : 3);
  const n = intFlag(f, 'parts-decisions', instructions ? 2000 : 100_000);
  const counted = instructions ? await startCallgrind() : undefined;
  const server = counted === undefined ? await startRedis() : undefined;
  const client = counted?.client ?? new Redis({ port: server.port, host: '127.0.0.1' });
  try {
    const variants = [
      ...BATCH_VARIANTS.map(([label, source]) => [label, (c) => runBatch(c, source, n, counted)]),
      ...SINGLE_VARIANTS.map(([label, source]) => [label, (c) => runSingle(c, source, n, source === NAIVE_BUCKET, counted)]),
    ];
    const samples = new Map(variants.map(([label]) => [label, []]));
    for (let r = 0; r < rounds; r++) for (const [label, measure] of variants) samples.get(label).push(await measure(client));
    const whole = { batch: median(samples.get(BATCH_VARIANTS[0][0])), single: median(samples.get(SINGLE_VARIANTS[0][0])) };
    const shown = (x) => (instructions ? `${fixed(x / 1000, 1)} k` : fixed(x, 2));
    const rows = variants.map(([label]) => {
      const x = median(samples.get(label));
      const base = BATCH_VARIANTS.some(([l]) => l === label) ? whole.batch : whole.single;
      return [label, shown(x), label.startsWith('  ') ? shown(base - x) : ''];
    });
    if (instructions) console.log(`redis-server under callgrind; Redis instructions per decision (EVALSHA, arguments and reply included), ${rounds} round(s) of ${n} decisions`);
    else console.log(`redis-server on 127.0.0.1:${server.port}; µs inside EVALSHA per decision (INFO commandstats), median of ${rounds} rounds of ${n} decisions`);
    console.log(formatTable(['script', instructions ? 'instructions per decision' : 'µs per decision', 'the piece taken out'], rows));
  } finally {
    if (counted !== undefined) counted.stop();
    else {
      client.disconnect();
      server.stop();
    }
  }
}
