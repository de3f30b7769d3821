// Section "ws": what @ratekeeper/ws adds to each WebSocket message, in process, on the memory store
// (issue 34: target ≤ 200 ns added per message). The message path as `ws` runs it (its 'message'
// listener called with (data, isBinary)) on a stand-in socket with the few methods the limiters call,
// one hot connection, in variants measured in alternating short chunks in one process:
//   - an empty handler called directly: the floor;
//   - messageLimit, each connection its own token bucket (every message admitted);
//   - messageLimit, a user's bucket and the connection's own, all or nothing (admitted);
//   - messageLimit refusing every message (drop: the flood's path);
//   - hono-rate-limiter 0.5's webSocketLimiter on its MemoryStore (a fixed window; its onMessage is
//     async: the chunk ends when the last message's promise has settled), admitted, and refusing.
// Reported: median ns per message over the chunks, its ~95 % interval, and the ns added to the floor.
//
// Flags: --ws-rounds=N (31 alternations), --ws-n=N (20000 messages per chunk).
import { TokenBucketLimiter } from '@ratekeeper/core';
import { messageLimit } from '@ratekeeper/ws';
import { webSocketLimiter } from 'hono-rate-limiter';
import { flags, intFlag } from './lib/args.mjs';
import { median, medianInterval } from './lib/stats.mjs';
import { fixed, formatTable } from './lib/table.mjs';

const socket = { send() {}, close() {}, pause() {}, resume() {}, once() {} };
const req = { headers: {}, url: '/' };
const data = Buffer.from('{"type":"move","x":1}');

function ours(options) {
  let handled = 0;
  const listener = messageLimit(options)(socket, req, () => handled++);
  return {
    run(n) {
      for (let i = 0; i < n; i++) listener(data, false);
      return handled;
    },
  };
}

async function hono(limit) {
  let handled = 0;
  const context = { set() {} };
  const wrap = webSocketLimiter({ windowMs: 3_600_000, limit, keyGenerator: () => 'client' });
  const events = await wrap(() => ({ onMessage: () => void handled++ }))(context);
  return {
    async run(n) {
      let last;
      for (let i = 0; i < n; i++) last = events.onMessage({ data }, socket);
      await last;
      return handled;
    },
  };
}

export async function run(args) {
  const f = flags(args);
  const rounds = intFlag(f, 'ws-rounds', 31);
  const n = intFlag(f, 'ws-n', 20_000);
  const big = () => new TokenBucketLimiter({ capacity: 1e12, refillPerSecond: 1e6 });
  let floorCount = 0;
  const handler = () => floorCount++;
  const variants = [
    {
      label: 'empty handler (the floor)',
      make: () => ({
        run: (m) => {
          for (let i = 0; i < m; i++) handler(data, false);
          return floorCount;
        },
      }),
    },
    { label: 'messageLimit, per connection, admitted', make: () => ours({ limiter: big() }) },
    { label: 'messageLimit, user + connection, admitted', make: () => ours({ limiter: big(), perConnection: big(), key: () => 'user' }) },
    { label: 'messageLimit, refused (drop)', make: () => ours({ limiter: new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1e-6 }) }) },
    { label: 'hono-rate-limiter webSocketLimiter, admitted', make: () => hono(1e12) },
    { label: 'hono-rate-limiter webSocketLimiter, refused', make: () => hono(0) },
  ];
  const made = [];
  for (const v of variants) made.push(await v.make());
  const samples = variants.map(() => []);
  for (let r = -5; r < rounds; r++) {
    for (let i = 0; i < variants.length; i++) {
      const t = process.hrtime.bigint();
      await made[i].run(n);
      const ns = Number(process.hrtime.bigint() - t) / n;
      if (r >= 0) samples[i].push(ns);
    }
  }
  const floor = median(samples[0]);
  const rows = variants.map((v, i) => {
    const [lo, hi] = medianInterval(samples[i]);
    const m = median(samples[i]);
    return [v.label, fixed(m, 1), `${fixed(lo, 1)}–${fixed(hi, 1)}`, i === 0 ? '—' : fixed(m - floor, 1)];
  });
  console.log(`ws — one message through its 'message' listener, in process, memory store, one hot connection; ${rounds} alternating chunks of ${n}; medians`);
  console.log(formatTable(['variant', 'ns/message', '~95% interval', 'ns added to the floor'], rows));
}
