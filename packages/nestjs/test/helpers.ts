/**
 * The Nest driver for the adapter contract (@ratekeeper/adapter-contract): one driver per platform
 * (Express and Fastify), each a real Nest application with RateLimitModule.forRoot(options), the guard
 * bound globally (APP_GUARD) and a controller whose GET / does what the contract's route does. Errors
 * that reach Nest's exception layer as a 500 (anything but an HttpException) are recorded. The
 * contract's neutral `handler` is what a Nest user writes for it: an exception filter catching
 * RateLimitException; a handler that throws or rejects goes on to Nest's 500.
 */
import 'reflect-metadata';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type ArgumentsHost,
  type CanActivate,
  Catch,
  Controller,
  type DynamicModule,
  type ExceptionFilter,
  Get,
  HttpException,
  Inject,
  type INestApplication,
  Module,
  Req,
  Res,
  type Type,
} from '@nestjs/common';
import { APP_GUARD, BaseExceptionFilter } from '@nestjs/core';
import type { Answer, ContractOptions, Driver, RequestView } from '@ratekeeper/adapter-contract';
import { refusal } from '@ratekeeper/adapter-contract';
import type { Decision } from '@ratekeeper/core';
import { type NestRequest, RateLimitException, RateLimitGuard, RateLimitModule, type RateLimitModuleOptions } from '../src/index.js';
import { type PlatformName, PLATFORMS, serveNest } from './support/nest-app.js';

/** A guard class: the real RateLimitGuard, or a mutant. */
export type GuardClass = Type<CanActivate>;

const STATE = Symbol('route state');

interface RouteState {
  ran: number;
  readonly ips: (string | undefined)[];
  readonly decisions: (Decision | undefined)[];
  readonly errors: unknown[];
  readonly work: ((req: RequestView) => Promise<void>) | undefined;
}

const isFastify = (req: NestRequest): boolean => typeof req['raw'] === 'object' && req['raw'] !== null;

/** view is the contract's RequestView of a platform request. */
export const view = (req: NestRequest): RequestView => {
  const query = (req['query'] ?? {}) as Record<string, unknown>;
  const url = String((isFastify(req) ? req['url'] : req['originalUrl']) ?? '/');
  return {
    header: (name) => {
      const value = (req['headers'] as Record<string, unknown>)[name.toLowerCase()];
      return typeof value === 'string' ? value : undefined;
    },
    query: (name) => (typeof query[name] === 'string' ? (query[name] as string) : undefined),
    path: url.split('?')[0] as string,
  };
};

/** send answers on either platform's response. */
export function send(res: NestRequest, status: number, body: unknown): void {
  if (typeof res['code'] === 'function') res['code'](status).send(body);
  else res['status'](status).send(body);
}

const rawOf = (res: NestRequest): ServerResponse => (typeof res['raw'] === 'object' ? res['raw'] : res) as ServerResponse;

@Controller()
class RouteController {
  constructor(@Inject(STATE) private readonly state: RouteState) {}

  @Get('/')
  async root(@Req() req: NestRequest, @Res() res: NestRequest): Promise<void> {
    this.state.ran++;
    this.state.ips.push(req['ip'] as string | undefined);
    this.state.decisions.push(req['rateLimit'] as Decision | undefined);
    if (this.state.work !== undefined) await this.state.work(view(req));
    const query = req['query'] as Record<string, string | undefined>;
    if (query['throw'] !== undefined) throw new Error('the route failed');
    // Still working when the client goes away; then it answers, for nobody.
    if (query['hold'] !== undefined) return void rawOf(res).once('close', () => send(res, 200, 'late'));
    const bytes = query['bytes'];
    send(res, Number(query['status'] ?? 200), bytes === undefined ? 'ok' : 'x'.repeat(Number(bytes)));
  }
}

/** Recorder records what Nest answers as a 500 (any error but an HttpException), then answers as Nest does. */
class Recorder extends BaseExceptionFilter {
  constructor(
    app: INestApplication,
    private readonly errors: unknown[],
  ) {
    super(app.getHttpAdapter());
  }

  override catch(exception: unknown, host: ArgumentsHost): void {
    if (!(exception instanceof HttpException)) this.errors.push(exception);
    super.catch(exception, host);
  }
}

/** answering is a user's filter for RateLimitException that answers with the contract's handler. */
function answering(handler: NonNullable<ContractOptions['handler']>, fallback: Recorder): ExceptionFilter {
  @Catch(RateLimitException)
  class Answering implements ExceptionFilter {
    async catch(exception: RateLimitException, host: ArgumentsHost): Promise<void> {
      const http = host.switchToHttp();
      let answer: Answer;
      try {
        answer = await handler(exception.decision, view(http.getRequest()));
      } catch (error) {
        return fallback.catch(error, host);
      }
      const res = http.getResponse<NestRequest>();
      if (typeof res['type'] === 'function') res['type']('application/json');
      else res['header']('content-type', 'application/json');
      send(res, answer.status ?? exception.getStatus(), JSON.stringify(answer.body));
    }
  }
  return new Answering();
}

/** translate maps the contract's options onto the module's (its hooks see the request's RequestView). */
export function translate(options: ContractOptions): RateLimitModuleOptions {
  const { key, skip, cost, plan, onDecision, countOutcome, settle, handler: _handler, ...rest } = options;
  return {
    ...rest,
    ...(key === undefined ? {} : { key: (req: NestRequest) => key(view(req)) }),
    ...(skip === undefined ? {} : { skip: (req: NestRequest) => skip(view(req)) }),
    ...(cost === undefined ? {} : { cost: (req: NestRequest) => cost(view(req)) }),
    ...(plan === undefined ? {} : { plan: (req: NestRequest) => plan(view(req)) }),
    ...(countOutcome === undefined ? {} : { countOutcome: (o, req: NestRequest) => countOutcome(o, view(req)) }),
    ...(settle === undefined ? {} : { settle: (o, req: NestRequest) => settle(o, view(req)) }),
    ...(onDecision === undefined ? {} : { onDecision: (d: Decision, req: NestRequest) => onDecision(d, view(req)) }),
  } as RateLimitModuleOptions; // rest keeps the contract's limiter choice, which spreading loses to the type checker
}

/** appModule is the application: the module's limits, `guard` bound globally, the contract's route. */
export function appModule(options: RateLimitModuleOptions, guard: GuardClass, state: RouteState, controllers: Type[] = [RouteController]): DynamicModule {
  @Module({})
  class AppModule {}
  return {
    module: AppModule,
    imports: [RateLimitModule.forRoot(options)],
    controllers,
    providers: [
      { provide: STATE, useValue: state },
      { provide: APP_GUARD, useClass: guard },
    ],
  };
}

/** refuseHeaderOn makes the platform refuse one header name, as Node does an invalid value. */
function refuseHeaderOn(platform: PlatformName, app: INestApplication, refused: string): void {
  if (platform === 'Express') {
    app.use((_req: IncomingMessage, res: ServerResponse, next: () => void) => {
      for (const method of ['setHeader', 'appendHeader'] as const) {
        const original = res[method] as (name: string, value: unknown) => ServerResponse;
        res[method] = function (this: ServerResponse, name: string, value: unknown) {
          if (name.toLowerCase() === refused) throw refusal(name);
          return original.call(this, name, value);
        } as never;
      }
      next();
    });
    return;
  }
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRequest', (_request: unknown, reply: NestRequest, done: () => void) => {
    const original = reply['header'] as (name: string, value: unknown) => unknown;
    reply['header'] = function (this: unknown, name: string, value: unknown) {
      if (name.toLowerCase() === refused) throw refusal(name);
      return original.call(this, name, value);
    };
    done();
  });
}

function driver(platform: PlatformName): Driver<GuardClass> {
  return {
    name: `Nest 12 on ${platform}`,
    rateLimit: RateLimitGuard,
    problemContentType: 'application/problem+json; charset=utf-8',
    owner: 'RateLimitModule',
    async construct(options) {
      const served = serveNest(platform, appModule(translate(options), RateLimitGuard, { ran: 0, ips: [], decisions: [], errors: [], work: undefined }));
      await served.ready;
    },
    serve(options, setup = {}) {
      const state: RouteState = { ran: 0, ips: [], decisions: [], errors: [], work: setup.work };
      const served = serveNest(platform, appModule(translate(options), setup.factory ?? RateLimitGuard, state), {
        proxy: setup.proxy,
        ...(setup.before === undefined ? {} : { before: setup.before }),
        configure: (app) => {
          const recorder = new Recorder(app, state.errors);
          app.useGlobalFilters(...(options.handler === undefined ? [recorder] : [recorder, answering(options.handler, recorder)]));
          if (setup.refuseHeader !== undefined) refuseHeaderOn(platform, app, setup.refuseHeader);
        },
      });
      return { ...served, errors: state.errors, ips: state.ips, decisions: state.decisions, ran: () => state.ran };
    },
    serveRoutes() {
      throw new Error('a Nest guard runs only for handlers: counting is checked by counting.test.ts');
    },
  };
}

export const drivers = PLATFORMS.map(driver);
