/**
 * routeKey on Fastify: the adapter contract's route-key suite (50 hostile spellings and 50 parameter
 * values, each in one bucket; the raw-path mutant caught) with one app-wide registration, whose
 * onRequest hook already knows the matched route; and a request no route matched, counted in one
 * bucket of its own per client.
 */
import { type Server, createServer } from 'node:http';
import { type RouteApp, listen, routeKeySuite } from '@ratekeeper/adapter-contract';
import { FixedWindowLimiter, ManualClock } from '@ratekeeper/core';
import Fastify, { type FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { rateLimit, routeKey } from '../src/index.js';
import { rawPathKey } from './mutants/raw-path-key.js';

type Key = (request: FastifyRequest, client: string | undefined) => string;

/** serveApp serves Fastify with the plugin registered app-wide and the two routes, on a real socket. */
function serveApp(options: Parameters<typeof rateLimit>[1]) {
  let server: Server | undefined;
  const app = Fastify({ serverFactory: (handler) => (server = createServer((req, res) => void ready.then(() => handler(req, res)))) });
  let login = 0;
  let user = 0;
  void app.register(rateLimit, options);
  app.post('/api/login', async () => (login++, 'login'));
  app.post('/api/users/:id', async () => (user++, 'user'));
  const ready = Promise.resolve(app.ready());
  return { ...listen({ listen: (port, host) => (server as Server).listen(port, host) }), login: () => login, user: () => user };
}

const app: RouteApp<Key> = { name: 'Fastify 5', serve: (limiter, key) => serveApp({ limiter, key }) };

routeKeySuite([app], { routeKey, rawPathKey });

describe('Fastify 5: routeKey on a request no route matched', () => {
  it('counts every unrouted path of a client in one bucket of its own (limitNotFound)', async () => {
    const served = serveApp({ limiter: new FixedWindowLimiter({ limit: 2, windowMs: 60_000, clock: new ManualClock(1_700_000_000_000) }), key: routeKey, limitNotFound: true });
    const statuses: number[] = [];
    for (const path of ['/nope', '/other', '/api/login/x', '/%00']) statuses.push((await served.http.get(path)).status);
    expect(statuses).toEqual([404, 404, 429, 429]);
    expect((await served.http.post('/api/login')).status).toBe(200);
  });
});
