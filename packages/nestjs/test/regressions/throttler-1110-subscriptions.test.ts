/**
 * nestjs/throttler#1110 (open): a guard bound globally crashes every GraphQL subscription ("Cannot
 * read properties of undefined (reading 'ip')"): a subscription's context has no HTTP request.
 * Reproduced with the GraphQL guard throttler's README documents; RateLimitGuard, bound the same way,
 * lets subscriptions run (Apollo over graphql-ws, Mercurius over its WebSocket), counts each one at
 * subscribe under the address of its WebSocket's socket, and denies the one over the limit with an
 * error, without a crash, while queries keep working.
 */
import { APP_GUARD } from '@nestjs/core';
import { Query, Resolver, Subscription } from '@nestjs/graphql';
import { ThrottlerModule } from '@nestjs/throttler';
import { ManualClock } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import { RateLimitGuard, RateLimitModule } from '../../src/index.js';
import { startGql } from '../support/graphql-app.js';
import { subscribe } from '../support/gql-ws.js';
import { GqlThrottlerGuard } from '../support/throttler-guards.js';

const seen: (string | undefined)[] = [];

@Resolver()
class TicksResolver {
  @Query('hello')
  hello(): string {
    return 'world';
  }

  @Subscription('ticks')
  ticks(): AsyncIterableIterator<{ ticks: number }> {
    return (async function* () {
      for (let i = 1; i <= 3; i++) yield { ticks: i };
    })();
  }
}

describe('nestjs/throttler#1110: subscriptions behind a global guard', () => {
  // Reported on throttler 3 as reading 'ip' (no `req`); throttler 6.7 finds graphql-ws's context as
  // `req` and fails one line later, writing its headers on a `res` that a subscription has not.
  it('@nestjs/throttler fails the subscription (the bug, as reported)', async () => {
    const { url } = await startGql(
      'Apollo on Express',
      [ThrottlerModule.forRoot([{ ttl: 60_000, limit: 10 }])],
      [TicksResolver],
      [{ provide: APP_GUARD, useClass: GqlThrottlerGuard }],
    );
    const { values, errors } = await subscribe(url, 'subscription { ticks }');
    expect(values).toEqual([]);
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/^Cannot read properties of undefined \(reading '(ip|header)'\)$/)]);
  });

  it.each(['Apollo on Express', 'Mercurius on Fastify'] as const)(
    'RateLimitGuard on %s: two subscriptions run to their end, the third is denied, queries still answer',
    async (server) => {
      const clock = new ManualClock(0);
      seen.length = 0;
      const { url, post } = await startGql(
        server,
        [RateLimitModule.forRoot({ limit: 2, windowMs: 60_000, clock, onDecision: (_d, req) => void seen.push(req['socket']?.remoteAddress ?? req['ip']) })],
        [TicksResolver],
        [{ provide: APP_GUARD, useClass: RateLimitGuard }],
      );
      for (let i = 0; i < 2; i++) expect(await subscribe(url, 'subscription { ticks }')).toEqual({ values: [{ ticks: 1 }, { ticks: 2 }, { ticks: 3 }], errors: [] });
      const denied = await subscribe(url, 'subscription { ticks }');
      expect(denied.values).toEqual([]);
      expect(denied.errors.map((e) => e.message)).toEqual(['Request cannot be satisfied as assigned quota has been exceeded']);
      expect(seen).toEqual(['127.0.0.1', '127.0.0.1', '127.0.0.1']);
      clock.advance(60_000);
      expect((await post('{ hello }')).body.data).toEqual({ hello: 'world' });
    },
  );
});
