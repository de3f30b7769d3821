// Calling a Node `(req, res)` handler in process, without a server or a socket (as http/_in-process.mjs
// does for the frameworks): a fresh IncomingMessage and ServerResponse per call on one stand-in socket
// whose remote address is 127.0.0.1 (one hot key), the response buffered, never written. Used by the
// nestjs and trpc sections, whose handlers answer after promises (Nest's router, tRPC's resolver).
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { median, medianInterval } from './stats.mjs';
import { fixed } from './table.mjs';

const SOCKET = Object.defineProperty(new Socket(), 'remoteAddress', { value: '127.0.0.1' });

/** nodeCall answers a function that sends one GET `url` to `handler` and resolves to the status once answered. */
export const nodeCall =
  (handler, url = '/') =>
  () => {
    const req = new IncomingMessage(SOCKET);
    req.method = 'GET';
    req.url = url;
    req.headers = { host: '127.0.0.1' };
    req.push(null);
    const res = new ServerResponse(req);
    handler(req, res);
    return res.writableEnded ? res.statusCode : ended(res);
  };

/**
 * ended resolves with the status when the app ends the response (its `end`, wrapped on this response
 * only: the same cost for every variant), or 0 if it has not after 10 s.
 */
function ended(res) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(0), 10_000);
    const end = res.end;
    res.end = function endAndResolve(...args) {
      const out = end.apply(this, args);
      clearTimeout(timer);
      resolve(res.statusCode);
      return out;
    };
  });
}

/**
 * timed makes `n` calls one after another and answers the process's CPU time per call, in ns (user +
 * system, `process.cpuUsage`: on a shared machine the time this process waits for a core is not its
 * cost, and wall time would count it); every status is checked.
 */
export async function timed(call, n, want) {
  let wrong = 0;
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    let status = call();
    if (typeof status !== 'number') status = await status;
    if (status !== want) wrong++;
  }
  const used = process.cpuUsage(start);
  const ns = ((used.user + used.system) * 1000) / n;
  if (wrong > 0) throw new Error(`in-process: ${wrong} of ${n} answers had a status other than ${want}`);
  return ns;
}

/**
 * interleaved warms every variant up, then runs `rounds` rounds of `calls` calls each, the variants in
 * a rotated order per round; answers each variant's samples (ns per call, one per round).
 */
export async function interleaved(variants, { calls, rounds, want = () => 200 }) {
  const names = [...variants.keys()];
  for (const name of names) await timed(variants.get(name), Math.min(calls, 5_000), want(name));
  const samples = new Map(names.map((name) => [name, []]));
  for (let r = 0; r < rounds; r++) {
    const k = r % names.length;
    for (const name of [...names.slice(k), ...names.slice(0, k)]) samples.get(name).push(await timed(variants.get(name), calls, want(name)));
  }
  return samples;
}

/** difference is the median [95 % interval] of the per-round differences of `a` to `b`, in µs. */
export function difference(samples, a, b) {
  const diffs = samples.get(a).map((x, r) => x - samples.get(b)[r]);
  const [lo, hi] = medianInterval(diffs);
  return { median: median(diffs) / 1000, text: `${fixed(median(diffs) / 1000, 2)} [${fixed(lo / 1000, 2)}, ${fixed(hi / 1000, 2)}]` };
}
