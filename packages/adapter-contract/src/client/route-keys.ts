/**
 * Route keys over real HTTP: an adapter's `routeKey` counts every spelling of a path that its
 * framework routes to one handler in that route's one bucket, and every value of a path parameter
 * too. Each adapter serves the same app (a RouteApp): POST /api/login and POST /api/users/:id behind
 * one limiter keyed by the helper under test, mounted where its framework knows the matched route
 * (app-wide on Fastify and Hono, on each route on Express, @koa/router and fetch), and the framework's
 * own 404 for everything else. Requests go out with their paths exactly as written (node:http does
 * not normalise them, as a browser's URL would), one after another, from 127.0.0.1 (and 127.0.0.2).
 *
 * - 50 hostile spellings of /api/login (`//`, case, a trailing `/`, `%2F`, `%6C`, `;param`, `/./`,
 *   `/../`, and mixes): the login handler runs exactly `LIMIT` times, whichever of them the framework
 *   routes there, and the limiter sees at most two keys (the route's, and the one of requests no
 *   route matched where the limiter sees those).
 * - /api/users/1 … /api/users/50: the handler runs `LIMIT` times under one key.
 * - Routes and clients stay apart: after login's bucket is spent, /api/users/:id and a second client
 *   each still get `LIMIT`.
 * The adapter's mutant (a key helper over the raw path, in each adapter's test/mutants/: packages/express/test/mutants/raw-path-key.ts and its siblings) must fail the
 * same checks: it runs the handler once per distinct spelling.
 */
import { request as httpRequest } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { FixedWindowLimiter, ManualClock, type RateLimiter } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import { type Listening, counting } from '../support.js';

/** LIMIT is the bucket's size: a route admits this many requests per client, then 429. */
export const LIMIT = 3;

/** HOSTILE_SPELLINGS are 50 spellings of /api/login, in the order they are sent. */
export const HOSTILE_SPELLINGS: readonly string[] = Object.freeze([
  ...['/api/login', '/api/login?x=1', '/api/login?', '/api/login#frag'],
  ...['//api/login', '/api//login', '///api///login', '//api//login//', '/API//LOGIN', '/api//%6Cogin'],
  ...['/api/login/', '/api/login//', '/api/%6Cogin/', '/API/LOGIN/'],
  ...['/API/login', '/api/LOGIN', '/Api/Login', '/api/./LOGIN'],
  ...['/api%2Flogin', '/api%2flogin', '/api/login%2F', '/api/login%2f'],
  ...['/api/%6Cogin', '/api/%6cogin', '/%61pi/login', '/api/logi%6E', '/%61%70%69/%6c%6f%67%69%6e'],
  ...['/api/login;', '/api/login;param', '/api/login;jsessionid=1', '/api;x/login', '/api/%6Cogin;p', '/api/login%3Bp'],
  ...['/api/./login', '/./api/login', '/api/login/.', '/api/login/./', '/api/%2e/login', '/api/login/%2e'],
  ...['/api/x/../login', '/api/../api/login', '/api/login/x/..', '/api/x/%2e%2e/login', '/api/x/%2E%2E/login'],
  ...['/api/login%3F', '/api/login%20', '/api/login%09', '/api/%20login', '/api/login.', '/api\\login'],
]);

/** Served is a RouteApp listening, with how many times each handler ran. */
export interface RouteServed extends Listening {
  /** Runs of the POST /api/login handler. */
  login(): number;
  /** Runs of the POST /api/users/:id handler. */
  user(): number;
}

/** RouteApp serves an adapter's route-key app: `key` is the adapter's helper (or its mutant), `limiter` the one limiter. */
export interface RouteApp<K> {
  readonly name: string;
  serve(limiter: RateLimiter, key: K): RouteServed;
}

interface Sent {
  readonly status: number;
}

/** post sends one POST with `path` exactly as written, from `from` (a loopback address). */
async function post(served: Listening, path: string, from = '127.0.0.1'): Promise<Sent> {
  if (!served.server.listening) await once(served.server, 'listening');
  const { port } = served.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'POST', localAddress: from, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** serve starts the app on a fresh limiter (LIMIT per window, the clock still), recording every key. */
function serve<K>(app: RouteApp<K>, key: K) {
  const counted = counting(new FixedWindowLimiter({ limit: LIMIT, windowMs: 60_000, clock: new ManualClock(1_700_000_000_000), name: 'route' }));
  return { served: app.serve(counted.limiter, key), keys: counted.keys };
}

/** spellingsLandInOneBucket sends the 50 spellings; the login handler must run LIMIT times under at most two keys. */
export async function spellingsLandInOneBucket<K>(app: RouteApp<K>, key: K): Promise<void> {
  const { served, keys } = serve(app, key);
  const statuses: number[] = [];
  for (const path of HOSTILE_SPELLINGS) statuses.push((await post(served, path)).status);
  expect(
    statuses.filter((s) => s >= 500),
    'no spelling is answered with a server error',
  ).toEqual([]);
  expect(served.login(), 'runs of the login handler over 50 spellings').toBe(LIMIT);
  expect(new Set(keys).size, 'keys the limiter saw').toBeLessThanOrEqual(2);
}

/** parametersLandInOneBucket rotates :id through 1…50; the user handler must run LIMIT times under one key. */
export async function parametersLandInOneBucket<K>(app: RouteApp<K>, key: K): Promise<void> {
  const { served, keys } = serve(app, key);
  for (let id = 1; id <= 50; id++) await post(served, `/api/users/${id}`);
  expect(served.user(), 'runs of the user handler over 50 ids').toBe(LIMIT);
  expect(new Set(keys).size, 'keys the limiter saw').toBe(1);
}

/** TIMEOUT_MS bounds each check: 50 requests one after another, on a machine that may be busy. */
const TIMEOUT_MS = 30_000;

export function routeKeySuite<K>(apps: readonly RouteApp<K>[], helpers: { readonly routeKey: K; readonly rawPathKey: K }): void {
  for (const app of apps) {
    describe(`${app.name}: routeKey`, { timeout: TIMEOUT_MS }, () => {
      it('counts 50 hostile spellings of one path in the route’s one bucket', async () => {
        await spellingsLandInOneBucket(app, helpers.routeKey);
      });

      it('counts every value of a path parameter in the route’s one bucket', async () => {
        await parametersLandInOneBucket(app, helpers.routeKey);
      });

      it('keeps routes and clients apart', async () => {
        const { served } = serve(app, helpers.routeKey);
        const statuses = async (path: string, from?: string) => {
          const got: number[] = [];
          for (let i = 0; i <= LIMIT; i++) got.push((await post(served, path, from)).status);
          return got;
        };
        const full = [...Array.from({ length: LIMIT }, () => 200), 429];
        expect(await statuses('/api/login')).toEqual(full);
        expect(await statuses('/api/users/7')).toEqual(full);
        expect(await statuses('/api/login', '127.0.0.2')).toEqual(full);
        expect([served.login(), served.user()]).toEqual([2 * LIMIT, LIMIT]);
      });

      it('the spellings check catches a key helper over the raw path (mutant)', async () => {
        await expect(spellingsLandInOneBucket(app, helpers.rawPathKey)).rejects.toThrow(/runs of the login handler over 50 spellings/);
      });

      it('the parameter check catches a key helper over the raw path (mutant)', async () => {
        await expect(parametersLandInOneBucket(app, helpers.rawPathKey)).rejects.toThrow(/runs of the user handler over 50 ids/);
      });
    });
  }
}
