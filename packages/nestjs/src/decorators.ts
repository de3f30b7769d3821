/**
 * The two decorators, on a controller (every handler of it, a gateway, a resolver class) or on one
 * handler; the handler's own word wins over its class's, limit by limit.
 *
 * `@RateLimit(options)` sets the limit of that controller or handler: options for the module's
 * default limit (`{ limit: 5, windowMs: 60_000 }`, any option RateLimitModule takes), or, as
 * @nestjs/throttler's `@Throttle` writes it, an object of named limits (`{ short: { limit: 3, ttl:
 * 1000 }, long: { … } }`). A name the module configures is overridden there: the options are merged
 * over the module's (see limits.ts); a name it does not configure adds a limit of its own. One
 * decorator's options are one limit: on a class, its handlers share that budget.
 *
 * `@SkipRateLimit()` skips every limit; `@SkipRateLimit({ short: true })` skips the named ones, and
 * `@SkipRateLimit({ short: false })` (or `false`) on a handler limits it again inside a skipped class.
 * (Throttler's bare `@SkipThrottle()` skips only its `default`; here it skips all.)
 *
 * The shape is checked when the decorator is applied (a TypeError at import); the options
 * themselves when the application starts (RateLimitModule prepares every decorated handler).
 */
import { SetMetadata } from '@nestjs/common';
import { OPTIONS, describeValue } from '@ratekeeper/core/adapter';
import type { RateLimitOptions } from './options.js';

/** The metadata keys (one each, holding every name: read by limits.ts). */
export const LIMITS_KEY = 'ratekeeper:limits';
export const SKIP_KEY = 'ratekeeper:skip';
/** Every name a limit's options may use, core's and this package's (throttler names included). */
const OPTION_NAMES: ReadonlySet<string> = new Set([
  ...OPTIONS,
  ...['ttl', 'blockDuration', 'getTracker', 'skipIf', 'ignoreUserAgents', 'generateKey', 'storage', 'errorMessage', 'setHeaders', 'handler', 'message', 'statusCode'],
]);

/** DEFAULT_LIMIT is the name of the limit `@RateLimit(options)` sets, and of a module's single limit. */
export const DEFAULT_LIMIT = 'default';

/** NamedLimits maps limit names to their options, as @nestjs/throttler's `@Throttle` takes them. */
export type NamedLimits = Readonly<Record<string, RateLimitOptions>>;

/** RateLimit sets or overrides limits on a controller or handler (see above). */
export function RateLimit(options: RateLimitOptions | NamedLimits): ClassDecorator & MethodDecorator {
  return SetMetadata(LIMITS_KEY, namedLimits(options));
}

/** SkipRateLimit skips every limit (no argument, `true`), or the named ones (`{ short: true }`). */
export function SkipRateLimit(skip: boolean | Readonly<Record<string, boolean>> = true): ClassDecorator & MethodDecorator {
  if (typeof skip === 'boolean') return SetMetadata(SKIP_KEY, { '*': skip });
  if (typeof skip !== 'object' || skip === null || Array.isArray(skip))
    throw new TypeError(`@SkipRateLimit: the argument must be a boolean or { [limit name]: boolean }, got ${describeValue(skip)}`);
  for (const [name, value] of Object.entries(skip)) {
    if (typeof value !== 'boolean') throw new TypeError(`@SkipRateLimit: ${name} must be a boolean, got ${describeValue(value)}`);
  }
  return SetMetadata(SKIP_KEY, { ...skip });
}

/** namedLimits reads either form of `@RateLimit`'s argument as limits by name. */
function namedLimits(options: unknown): NamedLimits {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError(`@RateLimit: options must be an object, got ${describeValue(options)}`);
  }
  const names = Object.keys(options);
  if (names.length === 0 || names.some((name) => OPTION_NAMES.has(name))) return { [DEFAULT_LIMIT]: options as RateLimitOptions };
  for (const name of names) {
    const value = (options as Record<string, unknown>)[name];
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new TypeError(
        `@RateLimit: ${describeValue(name)} is neither an option nor a limit's options (got ${describeValue(value)}); write @RateLimit({ limit: 5, windowMs: 60_000 }) or @RateLimit({ ${name}: { limit: 5, ttl: 60_000 } })`,
      );
    }
  }
  return options as NamedLimits;
}
