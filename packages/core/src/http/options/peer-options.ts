/**
 * The option names users bring from express-rate-limit, @fastify/rate-limit, rate-limiter-flexible,
 * koa-ratelimit and hono-rate-limiter, each with what to write instead. An adapter refuses an option
 * it does not take (a typo must never run on a default); when the name is one of these, the refusal
 * says what ratekeeper calls it, so the first line a user of those libraries types fails with its
 * translation: `unknown option "max": ratekeeper calls it "limit" …`. MIGRATING.md has the full tables.
 *
 * The options that shape the limited answer (`message`, `statusCode`, `errorResponseBuilder`,
 * `errorMessage`) translate into a `handler`, written in the terms of the user's framework: Express's
 * `(req, res)`, Koa's `ctx`, Fastify's `(request, reply)`, Hono's `c`, fetch's Request → Response
 * (./handler-hints.ts), and so do the options whose translation is code (`keyGenerator`, `allowList`'s
 * predicate, the hooks; ./peer-code.ts). An adapter that names no framework gets a sentence without code.
 */
import { type Framework, handlerHint } from './handler-hints.js';
import { peerCode } from './peer-code.js';

const PEER_OPTIONS: Readonly<Record<string, string>> = {
  max: `ratekeeper calls it "limit" (with windowMs: { limit: 100, windowMs: 900_000 }, a window from each client's first request, like express-rate-limit's)`,
  points: `ratekeeper calls it "limit" (rate-limiter-flexible's points per duration: { limit: points, windowMs: duration * 1000 })`,
  timeWindow: `ratekeeper takes "windowMs", a number of milliseconds (timeWindow: '1 minute' → windowMs: 60_000)`,
  standardHeaders: `ratekeeper calls it "headers": 'draft-10' (default: RateLimit and RateLimit-Policy, the successor of 'draft-7'/'draft-8'), 'legacy' (X-RateLimit-*), 'both' or false`,
  legacyHeaders: `ratekeeper folds it into "headers": headers: 'both' (draft-10 and X-RateLimit-*), 'legacy' (X-RateLimit-* alone)`,
  addHeaders: `ratekeeper calls it "headers": 'draft-10' (default), 'legacy', 'both' or false`,
  addHeadersOnExceeding: `ratekeeper calls it "headers": 'draft-10' (default), 'legacy', 'both' or false`,
  enableDraftSpec: `ratekeeper calls it "headers": 'draft-10' is the default`,
  disableHeader: `ratekeeper calls it "headers": headers: false`,
  skipSuccessfulRequests: `ratekeeper counts by outcome with "countOutcome": countOutcome: (o) => o.status >= 400`,
  skipFailedRequests: `ratekeeper counts by outcome with "countOutcome": countOutcome: (o) => o.status < 400`,
  requestWasSuccessful: `ratekeeper counts by outcome with "countOutcome": countOutcome: (o) => o.status >= 400 counts only failures`,
  keyPrefix: `ratekeeper calls it "name" (the policy's name in store keys and headers)`,
  identifier: `ratekeeper calls it "name" (the policy's name in store keys and headers)`,
  nameSpace: `set the store's prefix instead: new RedisStore({ client, prefix: 'rl:' })`,
  namespace: `set the store's prefix instead: new RedisStore({ client, prefix: 'rl:' })`,
  blockDuration: `wrap the limiter in a BanLimiter and pass it as limiter: limiter: new BanLimiter({ limiter, banMs: 60_000 })`,
  ban: `wrap the limiter in a BanLimiter and pass it as limiter: limiter: new BanLimiter({ limiter, banMs: 60_000 })`,
  blacklist: `ratekeeper calls it "denyList" (IP addresses and CIDR ranges, answered 403)`,
  driver: `pass a store instead: store: new RedisStore({ client })`,
  db: `pass a store instead: store: new RedisStore({ client })`,
  storeClient: `pass a store instead: store: new RedisStore({ client })`,
  passOnStoreError: `set it on the store: new RedisStore({ client, onFailure: 'open' }) (default 'fallback': an in-process limit)`,
  validate: `ratekeeper checks options when rateLimit is called; the trust-proxy check is "proxyWarning" (proxyWarning: false)`,
};

/** peerOption is the translation for an option name another rate limiter uses, in `framework`'s terms where it matters, or undefined. */
export function peerOption(name: string, framework?: Framework): string | undefined {
  return handlerHint(name, framework) ?? peerCode(name, framework) ?? (Object.hasOwn(PEER_OPTIONS, name) ? PEER_OPTIONS[name] : undefined);
}
