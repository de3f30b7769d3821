/**
 * The hello-world servers the HTTP benchmark measures: for each framework (express, fastify, koa, hono,
 * fetch on Node through @hono/node-server, bun: plain fetch on `Bun.serve` (its peer: hono-rate-limiter
 * on a Hono app), bun-hono: Hono on
 * `Bun.serve`) a `bare` app, the same app with `ratekeeper`, with the fair floor (`floor`: the
 * hand-written middleware of _floor.mjs) and with that framework's popular limiter (`peer`; plain
 * fetch has none). Every app answers `GET /` with the text `hello world`; nothing else differs.
 *
 * A limited variant runs one of two paths:
 * - `allow`: a limit so high it never denies during a run (ratekeeper: a token bucket of 10^9);
 * - `deny`: a limit of 1, so the first request (spent in warm-up) passes and every later one is 429.
 *
 * Each limiter runs at its own defaults (headers included) except for the limit and, for the peers, a
 * one-hour window, so that no window rolls over mid-run and turns a 429 slice into 200s:
 * - ratekeeper: `rateLimit({ algorithm: 'token-bucket', capacity, refillPerSecond })`, in-memory
 *   store, draft-10 `RateLimit`/`RateLimit-Policy` headers (its default);
 * - express-rate-limit: its defaults (`legacyHeaders: true`, `standardHeaders: false`, i.e. the
 *   `X-RateLimit-*` trio), or `standardHeaders: 'draft-8'` and no legacy headers when `erlHeaders`
 *   is 'draft-8';
 * - @fastify/rate-limit: its defaults (global, `x-ratelimit-*` headers, 429 through the error path);
 * - koa-ratelimit: the memory driver (`db: new Map()`), default `X-RateLimit-*` headers;
 * - hono-rate-limiter (Hono 4 on @hono/node-server): its defaults (`standardHeaders: 'draft-6'`,
 *   in-memory store) with the key it requires, the socket address from `getConnInfo`, as ratekeeper's.
 *
 * Ratekeeper's adapters are imported lazily, so the bare and peer servers run before they exist.
 */
import { createServer } from 'node:http';
import { expressFloor, fastifyFloor, fetchFloor, honoFloor, koaFloor } from './_floor.mjs';

export const FRAMEWORKS = ['express', 'fastify', 'koa', 'hono', 'fetch', 'bun', 'bun-hono'];
/** BUN_FRAMEWORKS run their servers under Bun (the harness forks them with Bun's binary). */
export const BUN_FRAMEWORKS = ['bun', 'bun-hono'];
/**
 * `control` is a second bare server, measured like a limiter: the A/A noise floor of a run. `noop`
 * is bare plus an empty middleware (an empty onRequest hook on Fastify): what the framework charges
 * for any middleware at all, before a limiter does anything. `ratekeeper-noheaders` is ratekeeper
 * with `headers: false` (Retry-After still on a 429), to split the decision's cost from the headers'.
 */
export const LIBRARIES = ['bare', 'control', 'noop', 'ratekeeper', 'ratekeeper-noheaders', 'floor', 'peer'];
export const PATHS = ['allow', 'deny'];

/** PEER_NAMES labels the peer limiter of each framework in reports. */
export const PEER_NAMES = {
  express: 'express-rate-limit',
  fastify: '@fastify/rate-limit',
  koa: 'koa-ratelimit',
  hono: 'hono-rate-limiter',
  bun: 'hono-rate-limiter (Hono)',
  'bun-hono': 'hono-rate-limiter',
};

const HOUR_MS = 3_600_000;
const HIGH = 1_000_000_000;
const HELLO = 'hello world';

/** limitFor returns the request limit of a path: never reached, or exactly one. */
function limitFor(path) {
  if (path === 'allow') return HIGH;
  if (path === 'deny') return 1;
  throw new TypeError(`servers: path must be 'allow' or 'deny', got ${String(path)}`);
}

function ratekeeperOptions(path, library) {
  const headers = library === 'ratekeeper-noheaders' ? { headers: false } : {};
  return { algorithm: 'token-bucket', capacity: limitFor(path), refillPerSecond: 1 / 3600, ...headers };
}

const isRatekeeper = (library) => library === 'ratekeeper' || library === 'ratekeeper-noheaders';
/** The floor's bucket has ratekeeper's capacity and refill, so both write fields of the same sizes. */
const floorArgs = (path) => [limitFor(path), 1 / 3600];

/** expressHandler builds the Express app of a variant (a `(req, res)` handler). */
export async function expressHandler(library, path, opts = {}) {
  const { default: express } = await import('express');
  const app = express();
  if (isRatekeeper(library)) {
    const { rateLimit } = await import('@ratekeeper/express');
    app.use(rateLimit(ratekeeperOptions(path, library)));
  } else if (library === 'peer') {
    const { rateLimit } = await import('express-rate-limit');
    const headers = opts.erlHeaders === 'draft-8' ? { standardHeaders: 'draft-8', legacyHeaders: false } : {};
    app.use(rateLimit({ limit: limitFor(path), windowMs: HOUR_MS, ...headers }));
  } else if (library === 'floor') {
    app.use(expressFloor(...floorArgs(path)));
  } else if (library === 'noop') {
    app.use(function noop(_req, _res, next) {
      next();
    });
  }
  app.get('/', (_req, res) => {
    res.send(HELLO);
  });
  return app;
}

async function expressApp(library, path, opts) {
  return createServer(await expressHandler(library, path, opts));
}

async function fastifyApp(library, path) {
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false });
  if (isRatekeeper(library)) {
    const { rateLimit } = await import('@ratekeeper/fastify');
    await app.register(rateLimit, ratekeeperOptions(path, library));
  } else if (library === 'peer') {
    const { default: fastifyRateLimit } = await import('@fastify/rate-limit');
    await app.register(fastifyRateLimit, { max: limitFor(path), timeWindow: HOUR_MS });
  } else if (library === 'floor') {
    app.addHook('onRequest', fastifyFloor(...floorArgs(path)));
  } else if (library === 'noop') {
    app.addHook('onRequest', function noop(_request, _reply, next) {
      next();
    });
  }
  app.get('/', async () => HELLO);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return app.server;
}

/** koaHandler builds the Koa app of a variant and returns its `(req, res)` callback. */
export async function koaHandler(library, path) {
  const { default: Koa } = await import('koa');
  const app = new Koa();
  if (isRatekeeper(library)) {
    const { rateLimit } = await import('@ratekeeper/koa');
    app.use(rateLimit(ratekeeperOptions(path, library)));
  } else if (library === 'peer') {
    const { default: ratelimit } = await import('koa-ratelimit');
    app.use(ratelimit({ driver: 'memory', db: new Map(), max: limitFor(path), duration: HOUR_MS }));
  } else if (library === 'floor') {
    app.use(koaFloor(...floorArgs(path)));
  } else if (library === 'noop') {
    app.use(function noop(_ctx, next) {
      return next();
    });
  }
  app.use((ctx) => {
    ctx.body = HELLO;
  });
  return app.callback();
}

async function koaApp(library, path) {
  return createServer(await koaHandler(library, path));
}

/** honoFetch builds the Hono app of a variant and returns its fetch function; `getConnInfo` is the runtime's. */
export async function honoFetch(library, path, getConnInfo) {
  const { Hono } = await import('hono');
  const app = new Hono();
  const address = (c) => getConnInfo(c).remote.address ?? '';
  if (isRatekeeper(library)) {
    const { rateLimit } = await import('@ratekeeper/hono');
    app.use(rateLimit({ ...ratekeeperOptions(path, library), getConnInfo }));
  } else if (library === 'floor') {
    app.use(honoFloor(...floorArgs(path), address));
  } else if (library === 'peer') {
    const { rateLimiter } = await import('hono-rate-limiter');
    app.use(rateLimiter({ windowMs: HOUR_MS, limit: limitFor(path), keyGenerator: address }));
  } else if (library === 'noop') {
    app.use(async function noop(_c, next) {
      await next();
    });
  }
  app.get('/', (c) => c.text(HELLO));
  return app.fetch;
}

async function honoApp(library, path) {
  const { createAdaptorServer } = await import('@hono/node-server');
  const { getConnInfo } = await import('@hono/node-server/conninfo');
  return createAdaptorServer({ fetch: await honoFetch(library, path, getConnInfo) });
}

const hello = () => new Response(HELLO);

/**
 * plainFetch returns the `(request, ...runtimeArgs) => Response` handler of a plain fetch variant;
 * `address(request, ...runtimeArgs)` reads the client address the runtime hands over.
 */
export async function plainFetch(library, path, address) {
  if (isRatekeeper(library)) {
    const { rateLimit } = await import('@ratekeeper/fetch');
    return rateLimit(ratekeeperOptions(path, library)).wrap(hello, address);
  }
  if (library === 'floor') return fetchFloor(...floorArgs(path), hello, address);
  if (library === 'noop') return (request) => Promise.resolve(hello(request));
  return hello;
}

/** fetchApp serves plain fetch handlers on Node (@hono/node-server hands over `{ incoming }`). */
async function fetchApp(library, path) {
  const { createAdaptorServer } = await import('@hono/node-server');
  return createAdaptorServer({ fetch: await plainFetch(library, path, (_request, env) => env.incoming.socket.remoteAddress) });
}

/** bunServe serves `fetch` on `Bun.serve` (this process must be Bun) behind a stand-in for a node:http server. */
function bunServe(fetch) {
  if (typeof Bun === 'undefined') throw new Error('servers: the bun frameworks run only under Bun');
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch });
  return { listening: true, address: () => ({ port: server.port }), close: () => server.stop(true) };
}

/**
 * bunApp serves plain fetch handlers on Bun (the fetch adapter, the floor). Bun has no limiter of its
 * own: its peer is the one its users reach for, hono-rate-limiter, on a Hono app (the Hono its users
 * would add for it).
 */
async function bunApp(library, path) {
  if (library === 'peer') {
    const { getConnInfo } = await import('hono/bun');
    return bunServe(await honoFetch(library, path, getConnInfo));
  }
  return bunServe(await plainFetch(library, path, (request, server) => server.requestIP(request)?.address));
}

/** bunHonoApp serves the Hono variants on Bun: the Hono adapter, the floor and hono-rate-limiter. */
async function bunHonoApp(library, path) {
  const { getConnInfo } = await import('hono/bun');
  return bunServe(await honoFetch(library, path, getConnInfo));
}

const BUILDERS = { express: expressApp, fastify: fastifyApp, koa: koaApp, hono: honoApp, fetch: fetchApp, bun: bunApp, 'bun-hono': bunHonoApp };

/**
 * listenApp builds one variant and listens on 127.0.0.1 at a free port; it resolves to the
 * listening node:http server. `path` is ignored for `bare` and `control`.
 */
export async function listenApp(framework, library, path, opts = {}) {
  const build = BUILDERS[framework];
  if (build === undefined) throw new TypeError(`servers: framework must be one of ${FRAMEWORKS.join(', ')}, got ${String(framework)}`);
  if (!LIBRARIES.includes(library)) throw new TypeError(`servers: library must be one of ${LIBRARIES.join(', ')}, got ${String(library)}`);
  if (library === 'peer' && PEER_NAMES[framework] === undefined) throw new TypeError(`servers: ${framework} has no peer limiter`);
  const unlimited = library === 'bare' || library === 'control' || library === 'noop';
  const server = await build(library === 'control' ? 'bare' : library, unlimited ? 'allow' : path, opts);
  if (server.listening) return server;
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return server;
}
