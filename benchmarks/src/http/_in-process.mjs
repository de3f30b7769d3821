/**
 * The HTTP benchmark's handlers called in process, without a server or a socket: what each limiter's
 * JavaScript costs per request, to a few hundred ns, where the HTTP rows' intervals span microseconds,
 * and a clean `--cpu-prof` profile of it.
 *
 *   bun src/http/_in-process.mjs [--framework=bun|bun-hono] [--path=allow|deny] [--calls=N] [--rounds=N]
 *     [--libraries=bare,noop,floor,ratekeeper,peer]
 *   bun --cpu-prof --cpu-prof-dir=DIR src/http/_in-process.mjs --libraries=ratekeeper   (one profile)
 *   node src/http/_in-process.mjs --framework=express|koa|fastify|hono|fetch [--path=…] [--libraries=…]
 *
 * - bun, bun-hono (run it with Bun): each call builds a fresh `Request` for `http://127.0.0.1/` (the
 *   server does the same for every request) and calls the variant's fetch handler with a stand-in
 *   for Bun's server (`requestIP` answers 127.0.0.1: one hot key, as in the HTTP benchmark). `bun` is
 *   the fetch adapter's `wrap` against the floor's wrapper, `bun-hono` the Hono adapter against the
 *   floor as a Hono middleware; the peer is hono-rate-limiter on Hono. The Response is not
 *   serialised. A server's profile on Bun is no use for this: JavaScriptCore's sampler bills the time
 *   the process spends outside JavaScript (the server's native work, and idle) to the last JavaScript
 *   function on the stack. On Node these run too, but undici's `Request` costs about 19 µs to build
 *   and buries the difference.
 * - express, koa, fastify (run it with Node): each call hands a fresh IncomingMessage (GET /) and
 *   ServerResponse on one stand-in socket (remote address 127.0.0.1, never written: the response is
 *   buffered) to the app's `(req, res)` handler (Fastify's: the one its server was given). Two
 *   Express variants exist only here, `floor+property` and `ratekeeper+property`, to price the
 *   property a limiter adds to Express's request (see expressOf).
 * - hono, fetch (run it with Node): the same, through @hono/node-server's request listener, as the
 *   HTTP benchmark serves them (the fetch adapter's `wrap`; Hono's peer is hono-rate-limiter, fetch
 *   has none).
 *
 * Rounds interleave the variants in a rotated order; the table gives each one's median ns per call
 * and the median [95 % interval] of its per-round differences to bare and to the floor. Not a section
 * (its name starts with "_"): a tool for explaining the HTTP rows.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { flags, intFlag } from '../lib/args.mjs';
import { median, medianInterval } from '../lib/stats.mjs';
import { fixed, formatTable } from '../lib/table.mjs';
import { expressHandler, honoFetch, koaHandler, listenApp, plainFetch } from './_servers.mjs';

const FRAMEWORKS = ['bun', 'bun-hono', 'express', 'koa', 'fastify', 'hono', 'fetch'];
const f = flags(process.argv.slice(2));
const framework = f.framework ?? 'bun';
const path = f.path ?? 'allow';
const onNode = !framework.startsWith('bun');
const calls = intFlag(f, 'calls', onNode ? 50_000 : 200_000);
const rounds = intFlag(f, 'rounds', 7);
const EXPRESS_DEFAULT = 'bare,noop,floor,floor+property,ratekeeper,ratekeeper+property,peer';
const DEFAULTS = { express: EXPRESS_DEFAULT, fetch: 'bare,noop,floor,ratekeeper' }; // plain fetch on Node has no peer
const libraries = (f.libraries ?? DEFAULTS[framework] ?? 'bare,noop,floor,ratekeeper,peer').split(',');
if (!FRAMEWORKS.includes(framework)) throw new TypeError(`in-process: --framework must be one of ${FRAMEWORKS.join(', ')}, got ${framework}`);
if (path !== 'allow' && path !== 'deny') throw new TypeError(`in-process: --path must be allow or deny, got ${path}`);

const SERVER = { requestIP: () => ({ address: '127.0.0.1', family: 'IPv4', port: 40_000 }) };
// hono/bun's getConnInfo, which imports Bun's globals: the same lookup, on either runtime.
const getConnInfo = (c) => ({ remote: { address: c.env.requestIP(c.req.raw)?.address } });

/** fetchCall answers a call of a fetch handler: a fresh Request, the stand-in server, the status. */
const fetchCall = (handler) => () => {
  const response = handler(new Request('http://127.0.0.1/'), SERVER);
  return typeof response?.then === 'function' ? response.then((r) => r.status) : response.status;
};

// One socket for every Node request, with the address a loopback client has.
const SOCKET = Object.defineProperty(new Socket(), 'remoteAddress', { value: '127.0.0.1' });

/**
 * nodeCall answers a call of a Node `(req, res)` handler (Express, Koa, Fastify, @hono/node-server's
 * listener): a fresh IncomingMessage (GET /) and ServerResponse on no connection (the response is
 * buffered, never written), and the status once the app has ended the response: in the same turn, or
 * after the microtasks of a limiter that awaits its store.
 */
const nodeCall = (app) => () => {
  const req = new IncomingMessage(SOCKET);
  req.method = 'GET';
  req.url = '/';
  req.headers = { host: '127.0.0.1' };
  const res = new ServerResponse(req);
  app(req, res);
  return res.writableEnded ? res.statusCode : ended(res);
};

/** ended waits out the microtasks of an app that answers after a promise (express-rate-limit's store): the status, or 0. */
async function ended(res) {
  for (let turns = 0; turns < 1000 && !res.writableEnded; turns++) await undefined;
  return res.writableEnded ? res.statusCode : 0;
}

/**
 * expressOf builds an Express variant. Two exist only here, to price the property Express's requests
 * gain: `floor+property` is the floor plus `req.rateLimit = {…}` (what a limiter that leaves its
 * decision on the request adds), and `ratekeeper+property` is ratekeeper on an app whose
 * `app.request` already has a `rateLimit`, so the request gets the plain property (as every request
 * did before the decision slot, packages/express/src/decision-slot.ts).
 */
async function expressOf(library, p) {
  const base = library.replace('+property', '');
  const app = await expressHandler(base, p);
  if (library === 'floor+property') {
    const stack = app.router?.stack ?? app._router.stack;
    const floor = stack[stack.length - 2].handle;
    stack[stack.length - 2].handle = function floorAndProperty(req, res, next) {
      req.rateLimit = { limit: 1 };
      floor(req, res, next);
    };
  }
  if (library === 'ratekeeper+property') Object.defineProperty(app.request, 'rateLimit', { value: undefined, writable: true, configurable: true });
  return nodeCall(app);
}

const listening = [];

async function callOf(library) {
  const unlimited = library === 'bare' || library === 'noop';
  const p = unlimited ? 'allow' : path;
  if (framework === 'express') return expressOf(library, p);
  if (framework === 'koa') return nodeCall(await koaHandler(library, p));
  if (framework === 'hono' || framework === 'fetch') {
    // As @hono/node-server serves them: its request listener, which builds the Request lazily.
    const { getRequestListener } = await import('@hono/node-server');
    const { getConnInfo: nodeConnInfo } = await import('@hono/node-server/conninfo');
    const fetch = framework === 'hono' ? await honoFetch(library, p, nodeConnInfo) : await plainFetch(library, p, (_request, env) => env.incoming.socket.remoteAddress);
    return nodeCall(getRequestListener(fetch));
  }
  if (framework === 'fastify') {
    // Fastify builds its request handler when it listens: take it from the server, close it at the end.
    const server = await listenApp('fastify', library, p);
    listening.push(server);
    return nodeCall(server.listeners('request')[0]);
  }
  if (framework === 'bun-hono' || library === 'peer') return fetchCall(await honoFetch(library, p, getConnInfo));
  return fetchCall(await plainFetch(library, p, (request, server) => server.requestIP(request)?.address));
}

/** timed makes `n` calls and answers ns per call; every answer's status is checked. */
async function timed(call, n, want) {
  let wrong = 0;
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    let status = call();
    if (typeof status !== 'number') status = await status;
    if (status !== want) wrong++;
  }
  const ns = ((performance.now() - start) * 1e6) / n;
  if (wrong > 0) throw new Error(`in-process: ${wrong} of ${n} answers had a status other than ${want}`);
  return ns;
}

const handlers = new Map();
for (const library of libraries) handlers.set(library, await callOf(library));
const wantOf = (library) => (path === 'deny' && library !== 'bare' && library !== 'noop' ? 429 : 200);
// The deny path's first request passes (a limit of 1): spend it, then warm every variant up.
for (const [library, handler] of handlers) {
  if (wantOf(library) === 429) await handler();
  await timed(handler, Math.min(calls, 50_000), wantOf(library));
}
const samples = new Map(libraries.map((library) => [library, []]));
for (let r = 0; r < rounds; r++) {
  const k = r % libraries.length;
  for (const library of [...libraries.slice(k), ...libraries.slice(0, k)]) samples.get(library).push(await timed(handlers.get(library), calls, wantOf(library)));
}
const ns = (library) => median(samples.get(library));
/** against is the median [95 % interval] of the per-round differences of `library` to `base`, in ns. */
function against(library, base) {
  const diffs = samples.get(library).map((x, r) => x - samples.get(base)[r]);
  const [lo, hi] = medianInterval(diffs);
  return `${fixed(median(diffs), 0)} [${fixed(lo, 0)}, ${fixed(hi, 0)}]`;
}
const runtime = typeof Bun === 'undefined' ? `Node ${process.version}` : `Bun ${Bun.version}`;
console.log(`${framework} ${path} in process on ${runtime}: median of ${rounds} interleaved rounds of ${calls} calls (${new Date().toISOString()})`);
const rows = libraries.map((library) => [
  library,
  fixed(ns(library), 0),
  library === 'bare' || !samples.has('bare') ? '' : against(library, 'bare'),
  library === 'floor' || !samples.has('floor') || library === 'bare' || library === 'noop' ? '' : against(library, 'floor'),
]);
console.log(formatTable(['library', 'ns per call', '− bare [95% CI]', '− floor [95% CI]'], rows));
for (const server of listening) server.close();
