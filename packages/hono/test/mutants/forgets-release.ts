/**
 * Mutant: middleware over @ratekeeper/fetch whose Request reads whether the client is gone but never
 * listens for it going (the real signal's `aborted`, an event target that drops every listener), so
 * in delay mode a held request whose client went away keeps its booking until its instant: units
 * spent for nobody. clientLeavesNoTrace must catch it.
 */
import { rateLimit as fetchRateLimit } from '@ratekeeper/fetch';
import type { Context, MiddlewareHandler } from 'hono';
import type { HonoRateLimitOptions } from '../../src/index.js';

const deaf = (signal: AbortSignal) =>
  ({
    get aborted() {
      return signal.aborted;
    },
    addEventListener: () => {},
    removeEventListener: () => {},
  }) as unknown as AbortSignal;

export function forgetsRelease(options: HonoRateLimitOptions): MiddlewareHandler {
  const { getConnInfo, ip, ...rest } = options;
  const limit = fetchRateLimit<Context>(rest, (c) => ({ signal: deaf(c.req.raw.signal) }) as Request);
  return async function rateLimitMutant(c, next) {
    const limited = await limit(c, { ip: ip !== undefined ? ip(c) : getConnInfo?.(c).remote.address });
    if (limited !== undefined) return limited;
    await next();
    const decision = limit.decision(c);
    if (decision !== undefined) limit.writeHeaders(decision, (name, value) => c.res.headers.set(name, value));
  };
}
