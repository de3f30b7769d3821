/**
 * GraphQL resolvers behind the guard, on real servers: Apollo (Express and Fastify platforms) and
 * Mercurius (Fastify), each bound globally (APP_GUARD) with no custom context and no subclass (what
 * @nestjs/throttler needs both for). Each guarded resolver call counts once; a denial is a GraphQL
 * error whose extensions carry the retry time, and the HTTP response carries RateLimit and
 * Retry-After. Apollo's default context on Fastify holds the request alone: there a denial's fields
 * reach the response through Apollo's `extensions.http`, and an admitted call writes none (a context
 * with the reply, `(request, reply) => ({ request, reply })`, writes them on every response).
 */
import { Inject } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Mutation, Query, Resolver } from '@nestjs/graphql';
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import { RateLimit, RateLimitGuard, RateLimitModule, SkipRateLimit } from '../src/index.js';
import { GQL_SERVERS, startGql } from './support/graphql-app.js';

const RUNS = Symbol('runs');

@Resolver()
class HelloResolver {
  constructor(@Inject(RUNS) private readonly runs: { count: number }) {}

  @Query('hello')
  hello(): string {
    this.runs.count++;
    return 'world';
  }

  @SkipRateLimit()
  @Query('other')
  other(): string {
    return 'free';
  }

  @RateLimit({ login: { limit: 2, windowMs: 60_000 } })
  @Mutation('login')
  login(): boolean {
    return false;
  }
}

const start = (server: (typeof GQL_SERVERS)[number], clock: ManualClock, runs = { count: 0 }) =>
  startGql(
    server,
    [RateLimitModule.forRoot({ limiter: new TokenBucketLimiter({ capacity: 3, refillPerSecond: 1, name: 'gql', clock }), key: () => 'k' })],
    [HelloResolver],
    [
      { provide: APP_GUARD, useClass: RateLimitGuard },
      { provide: RUNS, useValue: runs },
    ],
  );

describe.each(GQL_SERVERS)('%s', (server) => {
  it('admits 3 queries, then answers a GraphQL error with the retry time, the code and the problem body', async () => {
    const clock = new ManualClock(0);
    const runs = { count: 0 };
    const { post } = await start(server, clock, runs);
    for (let i = 0; i < 3; i++) {
      const ok = await post('{ hello }');
      expect(ok.body.data).toEqual({ hello: 'world' });
      expect(ok.headers.get('ratelimit')).toBe(server === 'Apollo on Fastify' ? null : `"gql";r=${2 - i};t=${i + 1}`);
    }
    const denied = await post('{ hello }');
    expect(denied.body.data).toEqual({ hello: null });
    const [error] = denied.body.errors ?? [];
    expect(error?.message).toBe('Request cannot be satisfied as assigned quota has been exceeded');
    expect(error?.extensions).toMatchObject({ retryAfterMs: 1000, retryAfterSeconds: 1 });
    expect(denied.headers.get('retry-after')).toBe('1');
    expect(denied.headers.get('ratelimit')).toBe('"gql";r=0;t=1');
    expect(denied.headers.get('ratelimit-policy')).toBe('"gql";q=3;w=3');
    expect(runs.count).toBe(3);
    clock.advance(1000);
    expect((await post('{ hello }')).body.data).toEqual({ hello: 'world' });
  });

  it('counts each guarded field of one operation, aliases included: 5 aliases of a 3-token limit admit 3', async () => {
    const clock = new ManualClock(0);
    const runs = { count: 0 };
    const { post } = await start(server, clock, runs);
    const res = await post('{ a: hello b: hello c: hello d: hello e: hello }');
    const data = res.body.data as Record<string, string | null>;
    expect(Object.values(data).filter((v) => v === 'world')).toHaveLength(3);
    expect(res.body.errors).toHaveLength(2);
    expect(runs.count).toBe(3);
  });

  it("skips a field under @SkipRateLimit and counts a mutation's own named limit beside the module's", async () => {
    const clock = new ManualClock(0);
    const { post } = await start(server, clock);
    for (let i = 0; i < 5; i++) expect((await post('{ other }')).body.data).toEqual({ other: 'free' });
    const logins: (boolean | null | undefined)[] = [];
    for (let i = 0; i < 3; i++) logins.push(((await post('mutation { login(name: "a") }')).body.data as { login: boolean | null } | null)?.login);
    expect(logins).toEqual([false, false, null]);
    // The module's limit counted the two admitted logins and the third (asked first, admitted), not the free fields.
    expect((await post('{ hello }')).body.errors).toHaveLength(1);
  });
});
