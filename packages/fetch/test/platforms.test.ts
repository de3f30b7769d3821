/**
 * ipFrom per platform, over real HTTP: the fetch adapter (`limit.wrap(handler, ipFrom(…))` on
 * @hono/node-server) behind a small edge proxy that rewrites the request's headers the way each
 * platform documents its edge doing: Cloudflare sets CF-Connecting-IP (over a client's own) and
 * appends to X-Forwarded-For; Fly sets Fly-Client-IP and appends; Netlify sets
 * x-nf-client-connection-ip and appends; Vercel overwrites X-Forwarded-For, x-vercel-forwarded-for
 * and x-real-ip; `{ hops: 2 }` is two proxies of one's own, each appending the address it saw. The
 * edge's client is the test's socket, 127.0.0.1 (the attacker) or 127.0.0.2 (a victim).
 *
 * - An attacker rotating made-up X-Forwarded-For values and platform headers gets one bucket: LIMIT
 *   admitted, then 429.
 * - An attacker writing the victim's address in those headers spends nothing of the victim's.
 * - The leftmost-hop mutant is caught (every made-up value a fresh bucket) wherever the edge appends
 *   to X-Forwarded-For; on Vercel, whose edge overwrites it, the leftmost entry is the edge's own.
 * Workers run for real in workerd: packages/runtimes/test/worker.test.ts.
 */
import { type IncomingHttpHeaders, type Server, createServer, request as httpRequest } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { FixedWindowLimiter, ManualClock } from '@ratekeeper/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type Platform, type ProxyHops, ipFrom, rateLimit } from '../src/index.js';
import { serveFetch } from './helpers.js';
import { leftmostHop } from './mutants/leftmost-hop.js';

const LIMIT = 3;
type Fields = Record<string, string | string[] | undefined>;

const append = (headers: Fields, peer: string) => {
  const xff = headers['x-forwarded-for'];
  headers['x-forwarded-for'] = xff === undefined ? peer : `${Array.isArray(xff) ? xff.join(', ') : xff}, ${peer}`;
};

/** The edges, as each platform documents what its proxy does to a request's headers. */
const EDGES: readonly [string, Platform | ProxyHops, (headers: Fields, peer: string) => void, boolean][] = [
  ['Cloudflare', 'cloudflare', (h, peer) => ((h['cf-connecting-ip'] = peer), append(h, peer)), true],
  ['Fly', 'fly', (h, peer) => ((h['fly-client-ip'] = peer), append(h, peer)), true],
  ['Netlify', 'netlify', (h, peer) => ((h['x-nf-client-connection-ip'] = peer), append(h, peer)), true],
  ['Vercel', 'vercel', (h, peer) => ((h['x-forwarded-for'] = peer), (h['x-vercel-forwarded-for'] = peer), (h['x-real-ip'] = peer)), false],
  // Two proxies of one's own: the first appends the client, the second the first proxy (10.0.0.1 here).
  ['two proxies of your own', { hops: 2 }, (h, peer) => (append(h, peer), append(h, '10.0.0.1')), true],
];

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => (s.close(done), s.closeAllConnections()))));
});

/** edge serves a proxy to 127.0.0.1:`port` that rewrites each request's headers with `rewrite` first. */
async function edge(port: number, rewrite: (headers: Fields, peer: string) => void): Promise<number> {
  const proxy = createServer((req, res) => {
    const headers: IncomingHttpHeaders = { ...req.headers };
    rewrite(headers, req.socket.remoteAddress as string);
    const upstream = httpRequest({ host: '127.0.0.1', port, path: req.url, method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  servers.push(proxy);
  await once(proxy.listen(0, '127.0.0.1'), 'listening');
  return (proxy.address() as AddressInfo).port;
}

/** platform serves the app behind the edge, its address read by `address`; send answers each status. */
async function platform(rewrite: (headers: Fields, peer: string) => void, address: (request: Request) => string | undefined) {
  const limit = rateLimit({ limiter: new FixedWindowLimiter({ limit: LIMIT, windowMs: 60_000, clock: new ManualClock(1_700_000_000_000) }) });
  const app = serveFetch(limit.wrap(() => new Response('ok'), address));
  servers.push(app.server);
  if (!app.server.listening) await once(app.server, 'listening');
  const port = await edge((app.server.address() as AddressInfo).port, rewrite);
  return (headers: Record<string, string>, from = '127.0.0.1') =>
    new Promise<number>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, localAddress: from, headers, agent: false }, (res) => (res.resume(), resolve(res.statusCode ?? 0)));
      req.on('error', reject);
      req.end();
    });
}

/** spoofs are `n` requests' headers, each a fresh made-up address (or `as`) in X-Forwarded-For and every platform header. */
const spoofs = (n: number, as?: string) =>
  Array.from({ length: n }, (_, i) => {
    const made = as ?? `6.6.6.${i}`;
    return { 'x-forwarded-for': made, 'cf-connecting-ip': made, 'fly-client-ip': made, 'x-nf-client-connection-ip': made, 'x-vercel-forwarded-for': made, 'x-real-ip': made };
  });

const statuses = async (send: Awaited<ReturnType<typeof platform>>, all: Record<string, string>[], from?: string) => {
  const got: number[] = [];
  for (const headers of all) got.push(await send(headers, from));
  return got;
};
const oneBucket = (n: number) => Array.from({ length: n }, (_, i) => (i < LIMIT ? 200 : 429));

describe.each(EDGES)('%s', (_name, from, rewrite, appends) => {
  it('counts an attacker rotating made-up X-Forwarded-For values and platform headers in one bucket', async () => {
    const send = await platform(rewrite, ipFrom(from));
    expect(await statuses(send, spoofs(12))).toEqual(oneBucket(12));
  });

  it("spends nothing of a victim's whose address the attacker writes", async () => {
    const send = await platform(rewrite, ipFrom(from));
    expect(await statuses(send, spoofs(LIMIT + 1, '127.0.0.2'))).toEqual(oneBucket(LIMIT + 1));
    expect(await statuses(send, spoofs(LIMIT + 1), '127.0.0.2')).toEqual(oneBucket(LIMIT + 1));
  });

  if (appends) {
    it('the check catches a reader of the leftmost X-Forwarded-For hop (mutant)', async () => {
      const send = await platform(rewrite, leftmostHop);
      expect(await statuses(send, spoofs(12))).not.toEqual(oneBucket(12));
    });
  } else {
    it('overwrites X-Forwarded-For at its edge: there, even the leftmost hop is the edge’s', async () => {
      const send = await platform(rewrite, leftmostHop);
      expect(await statuses(send, spoofs(12))).toEqual(oneBucket(12));
    });
  }
});
