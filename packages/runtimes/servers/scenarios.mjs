// The named scenarios every runtime server serves, so that one HTTP suite (test/suite.ts) checks the
// adapters on runtimes whose process the test cannot reach into: options cannot cross a process
// boundary, so each scenario is a fixed set of options, built afresh for every instance id in the
// path. Plain JavaScript, so Bun, Deno, Node and (bundled) workerd load it as it is.
//
//   GET /__clock?advance=<ms>         moves the ManualClock every scenario of this process runs on
//   GET /__clock?align=<ms>           moves it on to the next multiple of ms (a window boundary)
//   GET /f/<scenario>/<id>            @ratekeeper/fetch around a handler answering {"ip": ...}
//   GET /h/<scenario>/<id>            @ratekeeper/hono in a Hono app answering {"ip", "remaining"}
//
// The address: the runtime's own (`ip` passed in for fetch, `getConnInfo` for Hono), except in the
// scenarios named header-ip*, which read x-test-ip as a user behind a trusted proxy would read its
// header. Errors are left to the runtime's error handler (the server script), as an app would.
import { CompositeLimiter, ManualClock, SlidingWindowLimiter, TokenBucketLimiter } from '@ratekeeper/core';
import { rateLimit as fetchRateLimit } from '@ratekeeper/fetch';
import { rateLimit as honoRateLimit } from '@ratekeeper/hono';
import { Hono } from 'hono';

export const SECRET = 'redis://admin:hunter2@10.0.0.7:6379';

/** async wraps a limiter so that every consume is a promise rewritten by `decide`, as a remote store's is. */
const remote = (inner, decide) => ({
  mode: 'async',
  policies: inner.policies,
  consume: async (key, cost) => decide(await inner.consume(key, cost)),
  peek: async (key, cost) => inner.peek(key, cost),
  allow: async (key, cost) => inner.allow(key, cost),
  reset: async (key) => inner.reset(key),
});

const fromHeader = (readHeader) => ({ ip: readHeader });

/** options returns the adapter options of a scenario; `extra` adds runtime-specific ones (redis). */
function options(name, clock, extra) {
  const bucket = (capacity) => new TokenBucketLimiter({ capacity, refillPerSecond: 1, name: 'b', clock });
  switch (name) {
    case 'bucket':
      return { limiter: bucket(3) };
    case 'default':
      return { algorithm: 'token-bucket', clock };
    case 'composite':
      return {
        limiter: new CompositeLimiter([
          new TokenBucketLimiter({ capacity: 2, refillPerSecond: 1, name: 'burst', clock }),
          new SlidingWindowLimiter({ limit: 3, windowMs: 60_000, name: 'minute', clock }),
        ]),
      };
    case 'header-ip':
      return { limiter: bucket(1), header: true };
    case 'header-ip-skip':
      return { limiter: bucket(1), header: true, missingIp: 'skip' };
    case 'closed':
      return { limiter: remote(bucket(5), (d) => ({ ...d, allowed: false, failure: 'closed' })) };
    case 'secret':
      return { limiter: remote(bucket(5), () => Promise.reject(new Error(`connect ECONNREFUSED ${SECRET}`))) };
    default:
      if (extra?.[name] !== undefined) return extra[name](clock);
      return undefined;
  }
}

/**
 * scenarios builds the router. `getConnInfo` is the runtime's Hono helper; `extra` maps further
 * scenario names to (clock) => options.
 */
export function scenarios({ getConnInfo, extra } = {}) {
  const clock = new ManualClock(1_000_000);
  const made = new Map();

  function make(flavor, name, id) {
    const key = `${flavor}/${name}/${id}`;
    if (made.has(key)) return made.get(key);
    const o = options(name, clock, extra);
    if (o === undefined) return undefined;
    const { header, ...rest } = o;
    let handler;
    if (flavor === 'f') {
      const limit = fetchRateLimit(rest);
      handler = async (request, ip) => {
        const address = header ? (request.headers.get('x-test-ip') ?? undefined) : ip;
        const limited = await limit(request, { ip: address });
        if (limited !== undefined) return limited;
        return limit.headers(request, Response.json({ ip: address ?? null }));
      };
    } else {
      const source = header ? fromHeader((c) => c.req.header('x-test-ip')) : { getConnInfo };
      const app = new Hono().basePath(`/h/${name}/${id}`);
      app.onError((_error, c) => c.text('Internal Server Error', 500)); // Hono's default, minus its console.error
      app.use(honoRateLimit({ ...source, ...rest }));
      app.get('/', (c) => c.json({ ip: source.ip ? (source.ip(c) ?? null) : (getConnInfo(c).remote.address ?? null), remaining: c.var.rateLimit?.remaining ?? null }));
      handler = (request, _ip, env) => app.fetch(request, env);
    }
    made.set(key, handler);
    return handler;
  }

  /** handle answers one request; `ip` is the runtime's client address, `env` what Hono's fetch takes. */
  return async function handle(request, ip, env) {
    const url = new URL(request.url);
    if (url.pathname === '/__clock') {
      clock.advance(Number(url.searchParams.get('advance') ?? 0));
      const align = Number(url.searchParams.get('align') ?? 0);
      if (align > 0) clock.set(Math.ceil(clock.now() / align) * align);
      return new Response(String(clock.now()));
    }
    const [, flavor, name, id] = url.pathname.replace(/\/$/, '').split('/');
    const handler = (flavor === 'f' || flavor === 'h') && name && id ? make(flavor, name, id) : undefined;
    if (handler === undefined) return new Response('Not Found', { status: 404 });
    return handler(request, ip, env);
  };
}
