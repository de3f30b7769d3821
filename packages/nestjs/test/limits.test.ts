/**
 * Which limits guard a handler, over real HTTP: the module's named limits (throttler's array), each
 * counted per call in order, the first denial charging the rest nothing; `@RateLimit` on a handler or a
 * controller (its own budget, one per decorator, or the module's budget when it names no limiter
 * option); `@SkipRateLimit` for all or named limits, and undone on a handler; forRootAsync with a
 * RedisStore from Nest's injector (a real redis-server).
 */
import 'reflect-metadata';
import { Controller, Get, Module, type Provider } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { stopRedis, storeOn } from '@ratekeeper/adapter-contract';
import { ManualClock, type Store } from '@ratekeeper/core';
import { afterAll, describe, expect, it } from 'vitest';
import { RateLimit, RateLimitGuard, RateLimitModule, type RateLimitModuleOptions, SkipRateLimit } from '../src/index.js';
import { PLATFORMS, serveNest } from './support/nest-app.js';

afterAll(stopRedis);

@Controller()
class PlainController {
  @Get('/a')
  a(): string {
    return 'a';
  }

  @Get('/b')
  b(): string {
    return 'b';
  }

  @RateLimit({ limit: 2, windowMs: 60_000 })
  @Get('/own')
  own(): string {
    return 'own';
  }

  @RateLimit({ cost: () => 5 })
  @Get('/heavy')
  heavy(): string {
    return 'heavy';
  }

  @SkipRateLimit({ short: true })
  @Get('/long-only')
  longOnly(): string {
    return 'long';
  }
}

@RateLimit({ limit: 3, windowMs: 60_000 })
@Controller('/shared')
class SharedController {
  @Get('/x')
  x(): string {
    return 'x';
  }

  @Get('/y')
  y(): string {
    return 'y';
  }
}

@SkipRateLimit()
@Controller('/open')
class OpenController {
  @Get('/free')
  free(): string {
    return 'free';
  }

  @SkipRateLimit(false)
  @Get('/guarded')
  guarded(): string {
    return 'guarded';
  }
}

function app(platform: (typeof PLATFORMS)[number], root: ReturnType<typeof RateLimitModule.forRoot>, providers: Provider[] = []) {
  @Module({ imports: [root], controllers: [PlainController, SharedController, OpenController], providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }, ...providers] })
  class AppModule {}
  return serveNest(platform, AppModule);
}

const statuses = async (http: ReturnType<typeof serveNest>['http'], path: string, n: number) => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await http.get(path)).status);
  return out;
};

describe.each(PLATFORMS)('limits on %s', (platform) => {
  it('counts every named limit per call, in order; a denial by the first charges the second nothing', async () => {
    const clock = new ManualClock(0);
    const { http } = app(
      platform,
      RateLimitModule.forRoot([
        { name: 'short', ttl: 1000, limit: 3, clock },
        { name: 'long', ttl: 60_000, limit: 5, clock },
      ]),
    );
    const first = await http.get('/a').expect(200);
    expect(first.headers['ratelimit-policy']).toBe('"short";q=3;w=1, "long";q=5;w=60');
    expect(first.headers['ratelimit']).toBe('"short";r=2;t=1, "long";r=4;t=60');
    expect(await statuses(http, '/b', 3)).toEqual([200, 200, 429]);
    clock.advance(1000);
    // long has 2 left (the short denial took nothing from it): two more, then long denies.
    expect(await statuses(http, '/a', 2)).toEqual([200, 200]);
    const denied = await http.get('/a').expect(429);
    expect(denied.headers['retry-after']).toBe('59');
    expect(JSON.parse(denied.text)['violated-policies']).toEqual(['long']);
  });

  it('a handler skipping one named limit is counted by the other alone', async () => {
    const clock = new ManualClock(0);
    const { http } = app(
      platform,
      RateLimitModule.forRoot([
        { name: 'short', ttl: 1000, limit: 1, clock },
        { name: 'long', ttl: 60_000, limit: 3, clock },
      ]),
    );
    expect(await statuses(http, '/long-only', 4)).toEqual([200, 200, 200, 429]);
    expect((await http.get('/long-only')).headers['ratelimit-policy']).toBe('"long";q=3;w=60');
  });

  it("gives a decorated handler its own budget, a decorated controller one budget for its handlers, and a cost-only decorator the module's budget", async () => {
    const clock = new ManualClock(0);
    const { http } = app(platform, RateLimitModule.forRoot({ capacity: 10, refillPerSecond: 1, clock }));
    expect(await statuses(http, '/own', 3)).toEqual([200, 200, 429]);
    expect([...(await statuses(http, '/shared/x', 2)), ...(await statuses(http, '/shared/y', 2))]).toEqual([200, 200, 200, 429]);
    // The module's bucket of 10 is untouched by those: two heavy calls (5 each) spend it.
    expect(await statuses(http, '/heavy', 3)).toEqual([200, 200, 429]);
    expect(await statuses(http, '/a', 1)).toEqual([429]);
  });

  it('skips a whole controller, and limits again the handler that says @SkipRateLimit(false)', async () => {
    const { http } = app(platform, RateLimitModule.forRoot({ capacity: 2, refillPerSecond: 1, clock: new ManualClock(0) }));
    expect(await statuses(http, '/open/free', 4)).toEqual([200, 200, 200, 200]);
    expect(await statuses(http, '/open/guarded', 3)).toEqual([200, 200, 429]);
  });
});

describe('forRootAsync', () => {
  const STORE = Symbol('store');

  it('builds the limits from a factory fed by the injector: named limits on one RedisStore, exact counts', async () => {
    const clock = new ManualClock(0);
    const { store } = await storeOn('Redis');
    @Module({ providers: [{ provide: STORE, useValue: store }], exports: [STORE] })
    class StoreModule {}
    const root = RateLimitModule.forRootAsync({
      imports: [StoreModule],
      inject: [STORE],
      useFactory: async (redis: Store): Promise<RateLimitModuleOptions> => ({
        limits: [
          { name: 'burst', ttl: 1000, limit: 2 },
          { name: 'minute', ttl: 60_000, limit: 3 },
        ],
        store: redis,
        clock,
      }),
    });
    const { http } = app('Express', root);
    expect(await statuses(http, '/a', 3)).toEqual([200, 200, 429]);
    clock.advance(1000);
    const admitted = await http.get('/b').expect(200);
    expect(admitted.headers['ratelimit-policy']).toBe('"burst";q=2;w=1, "minute";q=3;w=60');
    // minute is spent; burst, asked first, admits and is charged (named limits count in order, as stacked middleware).
    const denied = await http.get('/b').expect(429);
    expect(JSON.parse(denied.text)['violated-policies']).toEqual(['minute']);
    expect(JSON.parse((await http.get('/a').expect(429)).text)['violated-policies']).toEqual(['burst']);
  });

  it('refuses a factory that is not a function', () => {
    expect(() => RateLimitModule.forRootAsync({ useFactory: 'x' as never })).toThrow(new TypeError('RateLimitModule.forRootAsync: useFactory must be a function, got "x"'));
  });
});
