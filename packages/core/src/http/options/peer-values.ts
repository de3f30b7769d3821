/**
 * Options ratekeeper takes under the name another rate limiter uses, with a value only the other
 * library takes: refused at construction with what to write instead, in the adapter's framework, before
 * the option's own check would answer only what the value must be.
 * - `allowList` as a function (@fastify/rate-limit's `allowList(request, key)`): a predicate is `skip`;
 * - `headers` as an object (koa-ratelimit's header names) or `true` (express-rate-limit's deprecated
 *   switch): `headers` is a style, 'draft-10' (default), 'legacy', 'both' or false;
 * - `store` as a class (@fastify/rate-limit's store constructor) or an object without `bind`
 *   (express-rate-limit's and hono-rate-limiter's stores: rate-limit-redis, …): a ratekeeper Store;
 * - `ipv6Subnet` as false or a function (express-rate-limit): a prefix length from 32 to 64.
 */
import { describeValue } from '../../validate.js';
import type { Framework } from './handler-hints.js';
import { adapterName, predicateHint } from './peer-code.js';

/** refusePeerValues throws a TypeError for the first option whose value only another rate limiter takes. */
export function refusePeerValues(owner: string, options: Readonly<Record<string, unknown>>, framework?: Framework): void {
  const adapter = adapterName(framework) ?? 'this adapter';
  const { allowList, headers, store, ipv6Subnet } = options;
  if (typeof allowList === 'function') {
    throw new TypeError(`${owner}: allowList must be an array of IP addresses or CIDR ranges, got a function: ${predicateHint(framework)}`);
  }
  if (headers === true || (typeof headers === 'object' && headers !== null)) {
    const what = headers === true ? "express-rate-limit's headers: true is headers: 'legacy' (X-RateLimit-*)" : "koa-ratelimit's header names are not configurable";
    throw new TypeError(
      `${owner}: headers must be 'draft-10', 'legacy', 'both' or false, got ${describeValue(headers)}: ${what}; ${adapter} writes RateLimit and RateLimit-Policy ('draft-10', the default), X-RateLimit-* ('legacy'), both ('both') or none (false)`,
    );
  }
  if (typeof store === 'function') {
    throw new TypeError(
      `${owner}: store must be a ratekeeper Store instance, got a function (a class, as @fastify/rate-limit's store is): ${adapter} takes a store: store: new RedisStore({ client }) (@ratekeeper/redis)`,
    );
  }
  if (typeof store === 'object' && store !== null && typeof (store as { bind?: unknown }).bind !== 'function' && 'increment' in store) {
    throw new TypeError(
      `${owner}: store must be a ratekeeper Store, got another rate limiter's store (express-rate-limit's and hono-rate-limiter's increment/decrement stores, such as rate-limit-redis): ${adapter} takes a ratekeeper store: store: new RedisStore({ client }) (@ratekeeper/redis), or PostgresStore, MySqlStore, SqliteStore`,
    );
  }
  if (ipv6Subnet === false || typeof ipv6Subnet === 'function') {
    throw new TypeError(
      `${owner}: ipv6Subnet must be an integer from 32 to 64, got ${describeValue(ipv6Subnet)}: ${adapter} always groups IPv6 clients by a prefix (default 56); for another key per request, write a key function`,
    );
  }
}
