/**
 * routeKey on Koa 3 and 2 with @koa/router: the adapter contract's route-key suite (50 hostile
 * spellings and 50 parameter values, each in one bucket; the raw-path mutant caught), with the limiter
 * on each route, where ctx._matchedRoute is the route's template; and the helper refusing a limiter
 * mounted before the router, where no route matched yet.
 */
import { Router } from '@koa/router';
import { type RouteApp, listen, routeKeySuite } from '@ratekeeper/adapter-contract';
import { FixedWindowLimiter } from '@ratekeeper/core';
import type Koa from 'koa';
import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import { rateLimit, routeKey } from '../src/index.js';
import { koas } from './helpers.js';
import { rawPathKey } from './mutants/raw-path-key.js';

type Key = (ctx: Context, client: string | undefined) => string;

const app = (name: string, Koa_: typeof Koa): RouteApp<Key> => ({
  name,
  serve(limiter, key) {
    const server = new Koa_();
    const router = new Router();
    const limit = rateLimit({ limiter, key });
    let login = 0;
    let user = 0;
    router.post('/api/login', limit, (ctx) => void (login++, (ctx.body = 'login')));
    router.post('/api/users/:id', limit, (ctx) => void (user++, (ctx.body = 'user')));
    server.use(router.routes());
    return { ...listen(server), login: () => login, user: () => user };
  },
});

routeKeySuite(
  koas.map(([name, Koa_]) => app(name, Koa_)),
  { routeKey, rawPathKey },
);

describe.each(koas)('%s: routeKey before the router', (_name, Koa_) => {
  it('refuses with a TypeError naming the fix, on the error path, rather than count every route in one bucket', async () => {
    const server = new Koa_();
    const errors: unknown[] = [];
    server.on('error', (error: unknown) => errors.push(error));
    server.use(rateLimit({ limiter: new FixedWindowLimiter({ limit: 5, windowMs: 60_000 }), key: routeKey }));
    const router = new Router();
    router.post('/api/login', (ctx) => void (ctx.body = 'login'));
    server.use(router.routes());
    await listen(server).http.post('/api/login').expect(500);
    expect(String(errors[0])).toBe(
      "TypeError: routeKey: no @koa/router route has matched this request yet; mount the limiter on the route (router.post('/login', limit, handler)), where ctx._matchedRoute is set",
    );
  });
});
