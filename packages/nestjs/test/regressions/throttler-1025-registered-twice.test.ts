/**
 * nestjs/throttler#1025: a guard registered twice (APP_GUARD in two modules, as the report had it,
 * or globally and on the controller) counted each request twice, halving the limit. RateLimitGuard
 * registered globally in two modules, on the controller and on the handler counts each call once:
 * exactly the limit is admitted, over HTTP and in a GraphQL resolver. The mutant, a guard that keys
 * "already decided" by its own registration instead of by the call, admits half and is caught.
 */
import 'reflect-metadata';
import { type CanActivate, Controller, type ExecutionContext, Get, Injectable, Module, type Type, UseGuards } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Query, Resolver } from '@nestjs/graphql';
import { ManualClock } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import { RateLimitGuard, RateLimitModule } from '../../src/index.js';
import { startGql } from '../support/graphql-app.js';
import { PLATFORMS, serveNest } from '../support/nest-app.js';

/** The mutant: each registration sees a call of its own (a fresh arguments array), so each counts it. */
@Injectable()
class CountsEachRegistration extends RateLimitGuard {
  override canActivate(context: ExecutionContext) {
    const args = [...context.getArgs()];
    return super.canActivate(Object.assign(Object.create(context), { getArgs: () => args }) as ExecutionContext);
  }
}

/** admitted sends 12 calls to an app whose guard is registered four times, with a limit of 10. */
async function admittedOverHttp(platform: (typeof PLATFORMS)[number], guard: Type<CanActivate>): Promise<number> {
  @UseGuards(guard)
  @Controller()
  class LoginController {
    @UseGuards(guard)
    @Get('/login')
    login(): string {
      return 'ok';
    }
  }
  @Module({ providers: [{ provide: APP_GUARD, useClass: guard }] })
  class OtherModule {}
  @Module({
    imports: [RateLimitModule.forRoot({ ttl: 60_000, limit: 10, clock: new ManualClock(0) }), OtherModule],
    controllers: [LoginController],
    providers: [{ provide: APP_GUARD, useClass: guard }],
  })
  class AppModule {}
  const { http } = serveNest(platform, AppModule);
  let admitted = 0;
  for (let i = 0; i < 12; i++) if ((await http.get('/login')).status === 200) admitted++;
  return admitted;
}

async function admittedOverGraphql(guard: Type<CanActivate>): Promise<number> {
  @UseGuards(guard)
  @Resolver()
  class HelloResolver {
    @UseGuards(guard)
    @Query('hello')
    hello(): string {
      return 'world';
    }
  }
  const { post } = await startGql(
    'Apollo on Express',
    [RateLimitModule.forRoot({ ttl: 60_000, limit: 10, clock: new ManualClock(0) })],
    [HelloResolver],
    [
      { provide: APP_GUARD, useClass: guard },
      { provide: APP_GUARD, useClass: guard },
    ],
  );
  let admitted = 0;
  for (let i = 0; i < 12; i++) if ((await post('{ hello }')).body.data?.['hello'] === 'world') admitted++;
  return admitted;
}

describe('nestjs/throttler#1025: the guard registered globally twice, on the controller and on the handler', () => {
  it.each(PLATFORMS)('admits exactly the limit of 10 over HTTP on %s', async (platform) => {
    expect(await admittedOverHttp(platform, RateLimitGuard)).toBe(10);
  });

  it('admits exactly the limit of 10 in a GraphQL resolver', async () => {
    expect(await admittedOverGraphql(RateLimitGuard)).toBe(10);
  });

  // Four registrations charge 4 a call: calls 1 and 2 take 8 of the 10, call 3 is denied at its third.
  it('the same checks catch a guard that counts each registration (mutant): 2 admitted of 12, not 10', async () => {
    expect(await admittedOverHttp('Express', CountsEachRegistration)).toBe(2);
    expect(await admittedOverGraphql(CountsEachRegistration)).toBe(2);
  });
});
