// HTTP/2 rapid reset on Bun: @ratekeeper/fetch served on Bun's node:http2 h2c server through
// @hono/node-server, a ConcurrencyLimiter of 10 in front of a route that works until the test opens
// its gate. Three apps: 0, the default options; 1, `abandonedMs: 0` (a lease that ends when its
// client resets); 2, a check whose wrap forgets a request whose client is gone (the lease of a reset
// stream is never handed back: the keeps-lease-after-reset mutant of packages/fetch). A small HTTP/1
// control server (node:http) tells the test what happened and opens the gate:
//   GET /ports         the apps' ports, [app 0, app 1, app 2]
//   GET /state?app=N   {"streams", "started", "running", "inFlight"} of app N
//   GET /open?app=N    opens app N's gate: every handler waiting answers (to nobody)
// It prints `listening <control port>` once all four listen on loopback.
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:http2';
import { createAdaptorServer } from '@hono/node-server';
import { ConcurrencyLimiter } from '@ratekeeper/core';
import { rateLimit } from '@ratekeeper/fetch';

const LEASES = 10;

/** forgetful is the mutant's wrap: a Response whose client is gone is returned without being handed over. */
const forgetful =
  (limit) =>
  (handler, ip) =>
  async (request, ...rest) => {
    const limited = await limit(request, { ip: ip(request, ...rest) });
    if (limited !== undefined) return limited;
    const response = await handler(request, ...rest);
    return request.signal.aborted ? response : limit.headers(request, response);
  };

function app(abandonedMs, mutant) {
  const limiter = new ConcurrencyLimiter({ limit: LEASES, name: 'inflight' });
  const state = { streams: 0, started: 0, running: 0 };
  const gate = [];
  const limit = rateLimit(abandonedMs === undefined ? { limiter } : { limiter, abandonedMs });
  const work = () => {
    state.started++;
    state.running++;
    return new Promise((resolve) => gate.push(() => (state.running--, resolve())));
  };
  const wrap = mutant ? forgetful(limit) : (handler, ip) => limit.wrap(handler, ip);
  const handler = wrap(
    async () => (await work(), new Response('ok')),
    (_request, env) => env.incoming.socket.remoteAddress,
  );
  const server = createAdaptorServer({ fetch: handler, createServer });
  server.on('stream', () => void state.streams++);
  server.on('session', (session) => void session.on('error', () => {}));
  const peek = () => limiter.peek('127.0.0.1');
  const report = () => ({ ...state, inFlight: peek().allowed ? LEASES - 1 - peek().remaining : LEASES });
  const open = () => gate.splice(0).forEach((go) => go());
  return { server, report, open };
}

const apps = [app(undefined, false), app(0, false), app(undefined, true)];
const listening = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
const ports = await Promise.all(apps.map((a) => listening(a.server)));
const control = createHttpServer((req, res) => {
  const url = new URL(req.url, 'http://control');
  const target = apps[Number(url.searchParams.get('app') ?? 0)];
  if (url.pathname === '/open') target.open();
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(url.pathname === '/ports' ? ports : target.report()));
});
console.log(`listening ${await listening(control)}`);
