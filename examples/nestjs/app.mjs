/**
 * The NestJS example application, on the Express or the Fastify platform: the same three limits as
 * the other examples, each keyed by the client IP the platform resolved (its proxy trust is off, so a
 * spoofed X-Forwarded-For changes nothing), plus a GraphQL resolver and a WebSocket gateway behind
 * the same guard, bound once, globally:
 *
 * - `global`, every guarded call (routes, the `hello` query, each gateway message): a token bucket of
 *   100 refilled at 10 per second;
 * - POST /login (`@RateLimit({ login: … })`, a limit of its own beside `global`): 5 per minute,
 *   sliding window;
 * - GET /search: 5 per second and 8 per minute at once (a CompositeLimiter: all or nothing, and a
 *   request one member denies costs the other nothing).
 *
 * Plain JavaScript has no decorator syntax, so Nest's decorators are applied as the functions they
 * are (`decorate` below); in TypeScript they are the usual `@Controller()`, `@Get('/')`, `@RateLimit(…)`.
 * `clock` is injectable so the test can move time by hand; a server uses the system clock.
 */
import 'reflect-metadata';
import { ApolloDriver } from '@nestjs/apollo';
import { Catch, Controller, Get, HttpCode, Module, Post, Query as QueryParam, UseFilters } from '@nestjs/common';
import { APP_GUARD, NestFactory } from '@nestjs/core';
import { GraphQLModule, Query, Resolver } from '@nestjs/graphql';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { WsAdapter } from '@nestjs/platform-ws';
import { BaseWsExceptionFilter, SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import { CompositeLimiter, SlidingWindowLimiter, TokenBucketLimiter, systemClock } from '@ratekeeper/core';
import { RateLimit, RateLimitException, RateLimitGuard, RateLimitModule } from '@ratekeeper/nestjs';

/** decorate applies class decorators to `target` and method decorators to its methods, as `@` would. */
function decorate(target, classDecorators, methods = {}) {
  for (const [name, decorators] of Object.entries(methods)) {
    const descriptor = Object.getOwnPropertyDescriptor(target.prototype, name);
    for (const decorator of [...decorators].reverse()) decorator(target.prototype, name, descriptor);
  }
  for (const decorator of [...classDecorators].reverse()) decorator(target);
  return target;
}

/** createModule builds the application module; each call has its own, empty limiters. */
export function createModule({ clock = systemClock } = {}) {
  const search = new CompositeLimiter([
    new TokenBucketLimiter({ capacity: 5, refillPerSecond: 5, name: 'search-1s', clock }),
    new SlidingWindowLimiter({ limit: 8, windowMs: 60_000, name: 'search-1m', clock }),
  ]);

  class AppController {
    hello() {
      return { hello: 'world' };
    }

    login() {
      return { loggedIn: false, reason: 'this example checks no passwords' };
    }

    search(q) {
      return { query: String(q ?? ''), results: [] };
    }
  }
  QueryParam('q')(AppController.prototype, 'search', 0);
  decorate(AppController, [Controller()], {
    hello: [Get('/')],
    login: [Post('/login'), HttpCode(200), RateLimit({ login: { algorithm: 'sliding-window', limit: 5, windowMs: 60_000, clock } })],
    search: [Get('/search'), RateLimit({ search: { limiter: search } })],
  });

  class HelloResolver {
    hello() {
      return 'world';
    }
  }
  decorate(HelloResolver, [Resolver()], { hello: [Query('hello')] });

  // Nest's default WS filter reports any HttpException as an internal error: answer a denial with its wait.
  class TooManyOverWs extends BaseWsExceptionFilter {
    catch(exception, host) {
      host
        .switchToWs()
        .getClient()
        .send(JSON.stringify({ event: 'rate-limited', data: { retryAfterMs: exception.decision.retryAfterMs } }));
    }
  }
  Catch(RateLimitException)(TooManyOverWs);

  class EchoGateway {
    echo(_client, data) {
      return { event: 'echo', data };
    }
  }
  decorate(EchoGateway, [WebSocketGateway({ path: '/ws' }), UseFilters(new TooManyOverWs())], { echo: [SubscribeMessage('echo')] });

  class AppModule {}
  Module({
    imports: [
      RateLimitModule.forRoot({ algorithm: 'token-bucket', capacity: 100, refillPerSecond: 10, name: 'global', clock }),
      GraphQLModule.forRoot({ driver: ApolloDriver, typeDefs: 'type Query { hello: String }' }),
    ],
    controllers: [AppController],
    providers: [HelloResolver, EchoGateway, { provide: APP_GUARD, useClass: RateLimitGuard }],
  })(AppModule);
  return AppModule;
}

/** createApp builds the example application on `platform` ('express' or 'fastify'), not yet listening. */
export async function createApp({ clock = systemClock, platform = 'express' } = {}) {
  const adapter = platform === 'fastify' ? new FastifyAdapter() : new ExpressAdapter();
  const app = await NestFactory.create(createModule({ clock }), adapter, { logger: ['error', 'warn'] });
  app.useWebSocketAdapter(new WsAdapter(app));
  return app;
}
