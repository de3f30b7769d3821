/**
 * @nestjs/throttler's option names, in the terms of ratekeeper, so that a throttler configuration
 * runs where the names mean the same and fails at startup, saying what to write, where they do not
 * (as every adapter answers its peers' names: core's options/peer-options.ts).
 *
 * Taken, translated before core sees the options:
 * - `ttl` (milliseconds) with `limit`: at most `limit` requests in any `ttl`, which is what
 *   throttler's per-hit expiry counts: the exact sliding log (`algorithm: 'sliding-log'`, `windowMs:
 *   ttl`), unless another `algorithm` is named. (`{ limit, windowMs }` keeps core's meaning: a fixed
 *   window.) A function (throttler's Resolvable) is refused: limits are built once, at startup.
 * - `blockDuration` (milliseconds): a denial bans the caller that long, a BanLimiter around the
 *   limit (throttler blocks for `ttl` when it is not given; ratekeeper's Retry-After is the exact
 *   wait instead, so write `blockDuration: ttl` to keep that penalty).
 * - `getTracker(req, context)`: the caller's key (ratekeeper's `key`).
 * - `skipIf(context)`: skip the request uncounted (ratekeeper's `skip`, which also gets `req`).
 * Refused, with what to write instead: `ignoreUserAgents`, `generateKey`, `storage`, `throttlers`,
 * `errorMessage`, `setHeaders`, and the limited-answer options of other libraries (`handler`,
 * `message`, `statusCode`, `errorResponseBuilder`): Nest's idiom for the answer is an exception
 * filter catching RateLimitException.
 */
import type { ExecutionContext } from '@nestjs/common';
import { describeValue } from '@ratekeeper/core/adapter';

const FILTER =
  'catch RateLimitException in an exception filter: @Catch(RateLimitException) class TooMany implements ExceptionFilter { … } (the default answer is 429 problem+json)';

const REFUSED: Readonly<Record<string, string>> = {
  ignoreUserAgents: `write it as skip: skip: (req) => /googlebot/i.test(req.headers['user-agent'] ?? '')`,
  generateKey: `write the caller's key with "key": key: (req, context) => req.user?.id ?? req.ip (ratekeeper adds the limit's name; a route's own @RateLimit is its own limit)`,
  storage: `ratekeeper calls it "store": store: new RedisStore({ client }) from @ratekeeper/redis`,
  throttlers: `ratekeeper calls them "limits": RateLimitModule.forRoot({ limits: [{ name: 'short', ttl: 1000, limit: 3 }], store })`,
  errorMessage: FILTER,
  setHeaders: `ratekeeper calls it "headers": headers: false writes none (default 'draft-10'; 'legacy' writes X-RateLimit-*)`,
  handler: FILTER,
  message: FILTER,
  statusCode: FILTER,
  errorResponseBuilder: FILTER,
};

/** Throttler's names this package takes, typed as throttler does (hooks with the ExecutionContext). */
export interface ThrottlerNames {
  /** @nestjs/throttler's window, in milliseconds: with `limit`, at most `limit` requests in any `ttl` (a sliding log). */
  readonly ttl?: number;
  /** @nestjs/throttler's ban after a denial, in milliseconds (a BanLimiter of `banMs: blockDuration`). */
  readonly blockDuration?: number;
  /** @nestjs/throttler's name for `key`: the caller's key. */
  // biome-ignore lint/suspicious/noExplicitAny: the platform's request, as @nestjs/throttler types it
  readonly getTracker?: (req: Record<string, any>, context: ExecutionContext) => string | PromiseLike<string>;
  /** @nestjs/throttler's name for a skip that reads only the context. */
  readonly skipIf?: (context: ExecutionContext) => boolean;
}

/** Translated is a limit's options in core's names, the throttler names replaced, and its ban if any. */
export interface Translated {
  readonly options: Record<string, unknown>;
  readonly banMs: number | undefined;
}

/** translateThrottler refuses throttler's names with no equivalent, then rewrites the ones taken (see above). */
export function translateThrottler(owner: string, options: Readonly<Record<string, unknown>>): Translated {
  for (const name of Object.keys(options)) {
    if (Object.hasOwn(REFUSED, name) && options[name] !== undefined) throw new TypeError(`${owner}: unknown option ${describeValue(name)}: ${REFUSED[name]}`);
  }
  const { ttl, blockDuration, getTracker, skipIf, ...rest } = options;
  const out: Record<string, unknown> = { ...rest };
  if (ttl !== undefined) {
    if (typeof ttl === 'function')
      throw new TypeError(`${owner}: ttl must be a number of milliseconds, got a function (limits are built once, at startup; per-caller limits are "plans" with "plan")`);
    if (rest['windowMs'] !== undefined) throw new TypeError(`${owner}: give ttl or windowMs, not both (ttl is @nestjs/throttler's name for windowMs)`);
    out['windowMs'] = ttl;
    if (rest['algorithm'] === undefined && rest['limiter'] === undefined && rest['plans'] === undefined) out['algorithm'] = 'sliding-log';
  }
  if (typeof rest['limit'] === 'function')
    throw new TypeError(`${owner}: limit must be a number, got a function (limits are built once, at startup; per-caller limits are "plans" with "plan")`);
  if (getTracker !== undefined) {
    if (rest['key'] !== undefined) throw new TypeError(`${owner}: give key or getTracker, not both (getTracker is @nestjs/throttler's name for key)`);
    if (typeof getTracker !== 'function') throw new TypeError(`${owner}: getTracker must be a function, got ${describeValue(getTracker)}`);
    out['key'] = getTracker;
  }
  if (skipIf !== undefined) {
    if (rest['skip'] !== undefined) throw new TypeError(`${owner}: give skip or skipIf, not both (skipIf is @nestjs/throttler's skip, called with the context alone)`);
    if (typeof skipIf !== 'function') throw new TypeError(`${owner}: skipIf must be a function, got ${describeValue(skipIf)}`);
    out['skip'] = (_req: unknown, context: ExecutionContext) => (skipIf as (c: ExecutionContext) => boolean)(context);
  }
  return { options: out, banMs: banOf(owner, blockDuration) };
}

function banOf(owner: string, blockDuration: unknown): number | undefined {
  if (blockDuration === undefined) return undefined;
  if (typeof blockDuration !== 'number' || !Number.isSafeInteger(blockDuration) || blockDuration <= 0) {
    const Kind = typeof blockDuration === 'number' ? RangeError : TypeError;
    throw new Kind(`${owner}: blockDuration must be a positive integer of milliseconds, got ${describeValue(blockDuration)}`);
  }
  return blockDuration;
}
