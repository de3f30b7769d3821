/**
 * nestjs/throttler#2382 (open): with the GraphQL guard its README documents and Apollo's default
 * context (`{ req }`, no `res`), every guarded query fails with "TypeError: Cannot read properties of
 * undefined (reading 'header')". Reproduced here on the same application, where RateLimitGuard, bound
 * the same way with no subclass and no custom context, limits the query and answers 429-style errors
 * only when the limit is spent.
 */
import { APP_GUARD } from '@nestjs/core';
import { Query, Resolver } from '@nestjs/graphql';
import { ThrottlerModule } from '@nestjs/throttler';
import { ManualClock } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import { RateLimitGuard, RateLimitModule } from '../../src/index.js';
import { startGql } from '../support/graphql-app.js';
import { GqlThrottlerGuard } from '../support/throttler-guards.js';

@Resolver()
class LoginResolver {
  @Query('hello')
  hello(): string {
    return 'world';
  }
}

describe('nestjs/throttler#2382: GraphQL with the default context', () => {
  it('@nestjs/throttler fails every query with the TypeError (the bug, as reported)', async () => {
    const { post } = await startGql(
      'Apollo on Express',
      [ThrottlerModule.forRoot([{ ttl: 60_000, limit: 10 }])],
      [LoginResolver],
      [{ provide: APP_GUARD, useClass: GqlThrottlerGuard }],
    );
    const res = await post('{ hello }');
    expect(res.body.errors?.[0]?.message).toBe("Cannot read properties of undefined (reading 'header')");
  });

  it.each(['Apollo on Express', 'Apollo on Fastify', 'Mercurius on Fastify'] as const)(
    'RateLimitGuard admits exactly the limit on %s, then denies with a retry time',
    async (server) => {
      const clock = new ManualClock(0);
      const { post } = await startGql(server, [RateLimitModule.forRoot({ ttl: 60_000, limit: 10, clock })], [LoginResolver], [{ provide: APP_GUARD, useClass: RateLimitGuard }]);
      const answers: (string | null)[] = [];
      for (let i = 0; i < 11; i++) answers.push(((await post('{ hello }')).body.data as { hello: string | null }).hello);
      expect(answers).toEqual([...new Array(10).fill('world'), null]);
      const denied = await post('{ hello }');
      expect(denied.body.errors?.[0]?.extensions).toMatchObject({ retryAfterMs: 60_000, retryAfterSeconds: 60 });
    },
  );
});
