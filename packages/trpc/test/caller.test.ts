/**
 * The middleware as an application writes it, typed end to end (`t.procedure.use(rateLimit(…))`,
 * no cast), keyed by the context's user, called through tRPC's server-side caller: there is no
 * response there, so nothing is written, and the denial still carries its wait in its cause and,
 * through rateLimitErrorFormatter or retryAfterOf, in the error's data.
 */
import { TRPCError, initTRPC } from '@trpc/server';
import { ManualClock } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import { RateLimitedError, rateLimit, rateLimitErrorFormatter, retryAfterOf } from '../src/index.js';

interface Context {
  readonly user: { readonly id: string };
}

describe('a server-side caller', () => {
  it('counts per user from the context and denies with TOO_MANY_REQUESTS and the wait', async () => {
    const clock = new ManualClock(0);
    const t = initTRPC.context<Context>().create({ errorFormatter: rateLimitErrorFormatter });
    const perUser = t.procedure.use(rateLimit<Context>({ limit: 2, windowMs: 60_000, clock, key: ({ ctx }) => ctx.user.id }));
    const router = t.router({ hello: perUser.query(({ ctx }) => `hello ${ctx.user.id}`) });
    const createCaller = t.createCallerFactory(router);
    const alice = createCaller({ user: { id: 'alice' } });
    const bob = createCaller({ user: { id: 'bob' } });
    expect([await alice.hello(), await alice.hello(), await bob.hello()]).toEqual(['hello alice', 'hello alice', 'hello bob']);
    const denied = await alice.hello().catch((error: unknown) => error);
    expect(denied).toBeInstanceOf(TRPCError);
    expect((denied as TRPCError).code).toBe('TOO_MANY_REQUESTS');
    expect((denied as TRPCError).cause).toBeInstanceOf(RateLimitedError);
    expect(retryAfterOf(denied)).toEqual({ retryAfterMs: 60_000, retryAfterSeconds: 60 });
    expect(retryAfterOf(new Error('other'))).toBeUndefined();
    expect(rateLimitErrorFormatter({ shape: { data: { code: 'TOO_MANY_REQUESTS' } }, error: denied })).toEqual({
      data: { code: 'TOO_MANY_REQUESTS', retryAfterMs: 60_000, retryAfterSeconds: 60 },
    });
  });
});
