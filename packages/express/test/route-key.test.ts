/**
 * routeKey on Express 4 and 5: the adapter contract's route-key suite (50 hostile spellings and 50
 * parameter values, each in one bucket; the raw-path mutant caught), with the limiter on each route,
 * where Express sets req.route; and the helper refusing an app-wide limiter, where no route matched yet.
 */
import { type RouteApp, listen, routeKeySuite } from '@ratekeeper/adapter-contract';
import { FixedWindowLimiter } from '@ratekeeper/core';
import type { ErrorRequestHandler, Request } from 'express';
import { describe, expect, it } from 'vitest';
import { rateLimit, routeKey } from '../src/index.js';
import { type Express, expresses } from './helpers.js';
import { rawPathKey } from './mutants/raw-path-key.js';

type Key = (req: Request, client: string | undefined) => string;

const app = (name: string, express: Express): RouteApp<Key> => ({
  name,
  serve(limiter, key) {
    const server = express();
    const limit = rateLimit({ limiter, key });
    let login = 0;
    let user = 0;
    server.post('/api/login', limit, (_req, res) => void (login++, res.send('login')));
    server.post('/api/users/:id', limit, (_req, res) => void (user++, res.send('user')));
    return { ...listen(server), login: () => login, user: () => user };
  },
});

routeKeySuite(
  expresses.map(([name, express]) => app(name, express)),
  { routeKey, rawPathKey },
);

describe.each(expresses)('%s: routeKey on an app-wide limiter', (_name, express) => {
  it('refuses with a TypeError naming the fix, sent to the error handler, rather than count every route in one bucket', async () => {
    const server = express();
    const errors: unknown[] = [];
    server.use(rateLimit({ limiter: new FixedWindowLimiter({ limit: 5, windowMs: 60_000 }), key: routeKey }));
    server.post('/api/login', (_req, res) => void res.send('login'));
    const record: ErrorRequestHandler = (error, _req, res, _next) => void (errors.push(error), res.status(500).end());
    server.use(record);
    await listen(server).http.post('/api/login').expect(500);
    expect(String(errors[0])).toBe(
      "TypeError: routeKey: no route has matched this request yet; mount the limiter on the route (app.post('/login', limit, handler)), where Express sets req.route",
    );
  });
});
