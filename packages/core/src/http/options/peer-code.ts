/**
 * The translations of other rate limiters' options that need code, written in the user's framework:
 * a key function reads a header the way Express (`req.get`), Fastify (`request.headers`), Koa
 * (`ctx.get`), Hono (`c.req.header`) or a fetch handler (`request.headers.get`) does, and a predicate
 * takes that framework's request. Each sentence names the adapter (`@ratekeeper/fastify takes …`), so
 * a refusal read in a log says whose option it is. Without a framework, the sentence names the option
 * without code. The names covered: express-rate-limit's and hono-rate-limiter's `keyGenerator` and
 * `requestPropertyName`, @fastify/rate-limit's hooks (`onExceeding`, `onExceeded`, `onBanReach`,
 * `hook`, `groupId`, `continueExceeding`, `exponentialBackoff`, `cache`, `redis`, `skipOnError`) and
 * koa-ratelimit's `id`, `duration`, `whitelist`, `blacklist`, `onLimited`, `throw` and `status`.
 */
import type { Framework } from './handler-hints.js';

/** What a code example needs of a framework: its package, the request's parameter, a header read, the IP. */
interface Terms {
  readonly pkg: string;
  /** The parameters of a key, skip or cost function. */
  readonly req: string;
  /** An API key header, string | undefined. */
  readonly header: string;
  /** The client's key when there is no header: clientKey of the framework's IP. */
  readonly ip: string;
  /** Where the decision is left for handlers. */
  readonly decision: string;
}

const TERMS: Readonly<Record<Framework, Terms>> = {
  express: { pkg: '@ratekeeper/express', req: 'req', header: "req.get('x-api-key')", ip: 'clientKey(req.ip)', decision: 'req.rateLimit' },
  fastify: {
    pkg: '@ratekeeper/fastify',
    req: 'request',
    header: "request.headers['x-api-key']?.toString()",
    ip: 'clientKey(request.ip)',
    decision: 'request.rateLimit',
  },
  koa: { pkg: '@ratekeeper/koa', req: 'ctx', header: "(ctx.get('x-api-key') || undefined)", ip: 'clientKey(ctx.ip)', decision: 'ctx.state.rateLimit' },
  hono: { pkg: '@ratekeeper/hono', req: 'c', header: "c.req.header('x-api-key')", ip: 'clientKey(getConnInfo(c).remote.address)', decision: 'c.var.rateLimit' },
  fetch: { pkg: '@ratekeeper/fetch', req: 'request', header: "request.headers.get('x-api-key')", ip: 'clientKey(ip)', decision: 'the Decision limit() answers' },
};

type Translate = (t: Terms) => string;

const keyHint: Translate = (t) => `${t.pkg} calls it "key": key: (${t.req}) => ${t.header} ?? ${t.ip} (clientKey from @ratekeeper/core; return a string)`;
const onDecision: Translate = (t) => `${t.pkg} calls every decision's hook "onDecision": onDecision: (decision, ${t.req}) => { if (!decision.allowed) log.warn('limited') }`;
const skipHint =
  (peer: string): Translate =>
  (t) =>
    `${t.pkg}'s allowList takes IP addresses and CIDR ranges; ${peer}'s predicate is "skip": skip: (${t.req}) => isTrusted(${t.req}) (true lets the request through uncounted)`;
const statusHint: Translate = (t) => `${t.pkg} answers 429 by default; to choose another status, write a handler: ${handlerWithStatus[t.pkg] ?? 'handler'}`;
const handlerWithStatus: Readonly<Record<string, string>> = {
  '@ratekeeper/express': "handler: (req, res) => res.status(503).send('…')",
  '@ratekeeper/fastify': "handler: (request, reply) => reply.code(503).send('…')",
  '@ratekeeper/koa': "handler: (ctx) => { ctx.status = 503; ctx.body = '…' }",
  '@ratekeeper/hono': "handler: (c) => c.text('…', 503)",
  '@ratekeeper/fetch': "handler: (request) => new Response('…', { status: 503 })",
};

/** A handler that writes its own Retry-After, per framework (express-rate-limit's `retryAfter`). */
const retryAfterHandler: Readonly<Record<string, string>> = {
  '@ratekeeper/express': "handler: (req, res) => res.set('Retry-After', '60').send('Too many requests')",
  '@ratekeeper/fastify': "handler: (request, reply) => reply.header('Retry-After', '60').send('Too many requests')",
  '@ratekeeper/koa': "handler: (ctx) => { ctx.set('Retry-After', '60'); ctx.body = 'Too many requests' }",
  '@ratekeeper/hono': "handler: (c) => c.text('Too many requests', 429, { 'Retry-After': '60' })",
  '@ratekeeper/fetch': "handler: (request) => new Response('Too many requests', { status: 429, headers: { 'Retry-After': '60' } })",
};

const CODE: Readonly<Record<string, Translate>> = {
  retryAfter: (t) => `${t.pkg} writes the exact wait as Retry-After (whole seconds, rounded up); to send another value, write a handler: ${retryAfterHandler[t.pkg] ?? 'handler'}`,
  keyGenerator: keyHint,
  id: keyHint,
  requestPropertyName: (t) => `${t.pkg} always leaves the decision on ${t.decision}`,
  requestStorePropertyName: (t) => `${t.pkg} always leaves the decision on ${t.decision}`,
  onExceeding: onDecision,
  onExceeded: onDecision,
  onBanReach: (t) =>
    `${t.pkg} bans with a BanLimiter (limiter: new BanLimiter({ limiter, banMs: 60_000 })); see a ban start in "onDecision": onDecision: (decision, ${t.req}) => { if (!decision.allowed) log.warn('limited') }`,
  onLimited: onDecision,
  whitelist: skipHint('koa-ratelimit'),
  blacklist: (t) => `${t.pkg}'s "denyList" takes IP addresses and CIDR ranges (answered 403); for a predicate, answer 403 in your own code before rateLimit runs`,
  throw: (t) =>
    `${t.pkg} answers the limited request itself; to throw instead: handler: (ctx) => ctx.throw(429, 'Too many requests')${t.pkg === '@ratekeeper/koa' ? '' : ' (Koa code)'}`,
  status: statusHint,
  duration: (t) =>
    t.pkg === '@ratekeeper/koa'
      ? `${t.pkg} takes "windowMs", in milliseconds like koa-ratelimit's duration: duration: 60_000 → windowMs: 60_000`
      : `${t.pkg} takes "windowMs", in milliseconds (rate-limiter-flexible's duration: 60 → windowMs: 60_000)`,
  hook: (t) =>
    `${t.pkg} always checks in onRequest, before the body is read; to count by something the body holds, call a limiter in the handler: const d = await limiter.consume(key); if (!d.allowed) return reply.code(429).send()`,
  groupId: (t) =>
    `${t.pkg}'s routes share one count when their config.rateLimit is the same object: const group = { limit: 5, windowMs: 60_000 }; app.get('/a', { config: { rateLimit: group } }, …); app.get('/b', { config: { rateLimit: group } }, …)`,
  continueExceeding: (t) =>
    `${t.pkg} never extends a window on a denied request (a denial changes no state); to keep a client out while it keeps trying, ban it: limiter: new BanLimiter({ limiter, banMs: 60_000 })`,
  exponentialBackoff: (t) =>
    `${t.pkg} answers the exact Retry-After and does not grow it; to punish a client that keeps trying, ban it: limiter: new BanLimiter({ limiter, banMs: 60_000 })`,
  cache: (t) => `${t.pkg} bounds its in-process store with "maxKeys": store: new MemoryStore({ maxKeys: 5000 })`,
  redis: (t) => `${t.pkg} takes a store: store: new RedisStore({ client: redis }) (RedisStore from @ratekeeper/redis, the same ioredis or node-redis client)`,
  skipOnError: (t) =>
    `set it on the store: store: new RedisStore({ client, onFailure: 'open' }) (${t.pkg}'s default, 'fallback', keeps limiting in process while the store is away)`,
  binding: (t) =>
    `${t.pkg} counts in its own store; to share limits on Cloudflare Workers, use a Durable Object: store: new DurableObjectStore({ namespace: env.RATE_LIMITER }) (@ratekeeper/durable-object)`,
  logger: (t) =>
    `${t.pkg} logs nothing itself: a store reports its failures as events (store.on('failure', (info) => logger.warn(info.reason))) and every decision reaches "onDecision"`,
};

/** Without a framework: the same options, in no framework's code. */
const NEUTRAL_PKG: Terms = { pkg: 'this adapter', req: 'req', header: "req.headers['x-api-key']", ip: 'clientKey(ip)', decision: 'the request' };

/** peerCode is the translation of `name` in `framework`'s code, or undefined when `name` needs none. */
export function peerCode(name: string, framework: Framework | undefined): string | undefined {
  if (!Object.hasOwn(CODE, name)) return undefined;
  return (CODE[name] as Translate)(framework === undefined ? NEUTRAL_PKG : TERMS[framework]);
}

/** adapterName is the package a refusal names: `@ratekeeper/fastify`, or undefined for an adapter that names no framework. */
export function adapterName(framework: Framework | undefined): string | undefined {
  return framework === undefined ? undefined : TERMS[framework].pkg;
}

/** predicateHint is what to write instead of a function given as `allowList` (@fastify/rate-limit's): `skip`. */
export function predicateHint(framework: Framework | undefined): string {
  return skipHint('@fastify/rate-limit')(framework === undefined ? NEUTRAL_PKG : TERMS[framework]);
}
