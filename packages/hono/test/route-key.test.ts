/**
 * routeKey on Hono (through @hono/node-server): the adapter contract's route-key suite (50 hostile
 * spellings and 50 parameter values, each in one bucket; the raw-path mutant caught) with one
 * app-wide `app.use`, which already knows the routes Hono matched; routes of a sub-app keyed with their
 * base path; and a request no route answers, counted in the limiter's own route (`/*`).
 */
import { type RouteApp, counting, routeKeySuite } from '@ratekeeper/adapter-contract';
import { FixedWindowLimiter, ManualClock } from '@ratekeeper/core';
import { getConnInfo } from '@hono/node-server/conninfo';
import { type Context, Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { rateLimit, routeKey } from '../src/index.js';
import { serveApp } from './helpers.js';
import { rawPathKey } from './mutants/raw-path-key.js';

type Key = (c: Context, client: string | undefined) => string;

const app: RouteApp<Key> = {
  name: 'Hono',
  serve(limiter, key) {
    const hono = new Hono();
    let login = 0;
    let user = 0;
    hono.use(rateLimit({ limiter, key, getConnInfo }));
    hono.post('/api/login', (c) => (login++, c.text('login')));
    hono.post('/api/users/:id', (c) => (user++, c.text('user')));
    return { ...serveApp(hono), login: () => login, user: () => user };
  },
};

routeKeySuite([app], { routeKey, rawPathKey });

describe('Hono: routeKey', () => {
  const limiter = () => {
    const { limiter: l, keys } = counting(new FixedWindowLimiter({ limit: 2, windowMs: 60_000, clock: new ManualClock(1_700_000_000_000) }));
    return { limiter: l, keys };
  };

  it('keys a sub-app’s route with its base path', async () => {
    const { limiter: l, keys } = limiter();
    const api = new Hono();
    api.post('/users/:id', (c) => c.text('user'));
    const hono = new Hono();
    hono.use(rateLimit({ limiter: l, key: routeKey, getConnInfo }));
    hono.route('/api', api);
    await serveApp(hono).http.post('/api/users/7').expect(200);
    expect(keys).toEqual(['14:/api/users/:id 127.0.0.1']);
  });

  it('counts a request no route answers under the limiter’s own route', async () => {
    const { limiter: l, keys } = limiter();
    const hono = new Hono();
    hono.use(rateLimit({ limiter: l, key: routeKey, getConnInfo }));
    const served = serveApp(hono);
    expect([(await served.http.get('/nope')).status, (await served.http.get('/other')).status, (await served.http.get('/x/y')).status]).toEqual([404, 404, 429]);
    expect(new Set(keys)).toEqual(new Set(['2:/* 127.0.0.1']));
  });
});
