/**
 * @nestjs/throttler's README examples, ported as MIGRATING.md's table says and run over real HTTP:
 * the module with one `{ ttl, limit }`, three named throttlers, `@SkipThrottle` for named throttlers and
 * undone on a handler, `@Throttle({ default: { limit, ttl } })` on a handler, the proxy guard's
 * `getTracker` reading `req.ips`, and `forRootAsync` with a factory fed by an injected configuration.
 * (Its GraphQL and WebSocket sections, which need a subclass there, need none here: graphql.test.ts,
 * gateway.test.ts.) Exact counts at fixed instants on a ManualClock.
 */
import 'reflect-metadata';
import { Controller, Get, Inject, Injectable, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ManualClock } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import { RateLimit, RateLimitGuard, RateLimitModule, type RateLimitModuleOptions, SkipRateLimit } from '../src/index.js';
import { type PlatformName, serveNest } from './support/nest-app.js';

@Controller('/users')
class UsersController {
  @Get('/')
  findAll(): string {
    return 'List users';
  }

  // "@Throttle({ default: { limit: 3, ttl: 60000 } })": a tighter limit on one route.
  @RateLimit({ default: { limit: 3, ttl: 60_000 } })
  @Get('/custom')
  custom(): string {
    return 'List users works with custom rate limiting.';
  }
}

// "@SkipThrottle({ default: true })" on the class, "@SkipThrottle({ default: false })" on one handler.
@SkipRateLimit({ default: true })
@Controller('/skipping')
class SkippingController {
  @SkipRateLimit({ default: false })
  @Get('/dont-skip')
  dontSkip(): string {
    return 'List users work with Rate limiting.';
  }

  @Get('/do-skip')
  doSkip(): string {
    return 'List users work without Rate limiting.';
  }
}

// "@SkipThrottle({ short: true, medium: true })": only `long` counts here.
@SkipRateLimit({ short: true, medium: true })
@Controller('/long-only')
class LongOnlyController {
  @Get('/')
  get(): string {
    return 'long only';
  }
}

function serve(root: ReturnType<typeof RateLimitModule.forRoot>, platform: PlatformName = 'Express', proxy?: unknown) {
  @Module({ imports: [root], controllers: [UsersController, SkippingController, LongOnlyController], providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }] })
  class AppModule {}
  return serveNest(platform, AppModule, proxy === undefined ? {} : { proxy });
}

async function statuses(http: ReturnType<typeof serve>['http'], path: string, n: number, headers: Record<string, string> = {}): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await http.get(path).set(headers)).status);
  return out;
}

describe("@nestjs/throttler's README, ported", () => {
  it('ThrottlerModule.forRoot([{ ttl: 60000, limit: 10 }]): 10 requests a minute, then 429 until the oldest is a minute old', async () => {
    const clock = new ManualClock(0);
    const { http } = serve(RateLimitModule.forRoot([{ ttl: 60_000, limit: 10, clock }]));
    expect(await statuses(http, '/users', 11)).toEqual([...new Array(10).fill(200), 429]);
    clock.advance(59_999);
    expect(await statuses(http, '/users', 1)).toEqual([429]);
    clock.advance(1);
    expect(await statuses(http, '/users', 1)).toEqual([200]);
  });

  it('three named throttlers (3 a second, 20 in 10 s, 100 a minute): 3 at once, 20 in ten seconds', async () => {
    const clock = new ManualClock(0);
    const { http } = serve(
      RateLimitModule.forRoot([
        { name: 'short', ttl: 1000, limit: 3, clock },
        { name: 'medium', ttl: 10_000, limit: 20, clock },
        { name: 'long', ttl: 60_000, limit: 100, clock },
      ]),
    );
    expect(await statuses(http, '/users', 4)).toEqual([200, 200, 200, 429]);
    const admitted: number[] = [];
    for (let s = 1; s < 10; s++) {
      clock.advance(1000);
      admitted.push((await statuses(http, '/users', 3)).filter((status) => status === 200).length);
    }
    // medium's 20 in 10 s: 3 + 3·5 = 18, then 2 in the seventh second, then none.
    expect(admitted).toEqual([3, 3, 3, 3, 3, 2, 0, 0, 0]);
    expect(await statuses(http, '/long-only', 3)).toEqual([200, 200, 200]);
  });

  it('@SkipThrottle({ default: true }) on a class and { default: false } on one handler', async () => {
    const { http } = serve(RateLimitModule.forRoot({ ttl: 60_000, limit: 2, clock: new ManualClock(0) }));
    expect(await statuses(http, '/skipping/do-skip', 3)).toEqual([200, 200, 200]);
    expect(await statuses(http, '/skipping/dont-skip', 3)).toEqual([200, 200, 429]);
  });

  it('@Throttle({ default: { limit: 3, ttl: 60000 } }) on a handler: its own 3 a minute', async () => {
    const { http } = serve(RateLimitModule.forRoot({ ttl: 60_000, limit: 10, clock: new ManualClock(0) }));
    expect(await statuses(http, '/users/custom', 4)).toEqual([200, 200, 200, 429]);
    expect(await statuses(http, '/users', 1)).toEqual([200]);
  });

  it("the proxy guard's getTracker on Express: the leftmost address of req.ips", async () => {
    const getTracker = (req: Record<string, unknown>) => {
      const ips = req['ips'] as string[] | undefined;
      return ips !== undefined && ips.length > 0 ? (ips[0] as string) : (req['ip'] as string);
    };
    const { http } = serve(RateLimitModule.forRoot({ ttl: 60_000, limit: 1, getTracker, clock: new ManualClock(0) }), 'Express', 'loopback');
    expect(await statuses(http, '/users', 2, { 'x-forwarded-for': '203.0.113.1' })).toEqual([200, 429]);
    expect(await statuses(http, '/users', 1, { 'x-forwarded-for': '203.0.113.2' })).toEqual([200]);
  });

  // The README's proxy guard reads req.ips[0] "for Fastify"; Fastify's ips start with the socket's own
  // address (127.0.0.1 here), so that guard would key every client behind the proxy alike. The default
  // key, Fastify's request.ip under trustProxy, is the client's.
  it('behind a proxy on Fastify the default key needs no getTracker: request.ip under trustProxy', async () => {
    const { http } = serve(RateLimitModule.forRoot({ ttl: 60_000, limit: 1, clock: new ManualClock(0) }), 'Fastify', true);
    expect(await statuses(http, '/users', 2, { 'x-forwarded-for': '203.0.113.1' })).toEqual([200, 429]);
    expect(await statuses(http, '/users', 1, { 'x-forwarded-for': '203.0.113.2' })).toEqual([200]);
  });

  it('forRootAsync with a factory fed by an injected configuration', async () => {
    const CONFIG = Symbol('config');
    @Injectable()
    class ConfigService {
      constructor(@Inject(CONFIG) private readonly values: Record<string, number>) {}
      get(name: string): number {
        return this.values[name] as number;
      }
    }
    @Module({ providers: [{ provide: CONFIG, useValue: { THROTTLE_TTL: 60_000, THROTTLE_LIMIT: 2 } }, ConfigService], exports: [ConfigService] })
    class ConfigModule {}
    const clock = new ManualClock(0);
    const root = RateLimitModule.forRootAsync({
      imports: [ConfigModule],
      inject: [ConfigService],
      useFactory: (config: ConfigService): RateLimitModuleOptions => [{ ttl: config.get('THROTTLE_TTL'), limit: config.get('THROTTLE_LIMIT'), clock }],
    });
    const { http } = serve(root);
    expect(await statuses(http, '/users', 3)).toEqual([200, 200, 429]);
  });
});
