/**
 * routeKey on the fetch adapter (served on Node by @hono/node-server): the adapter contract's
 * route-key suite (50 hostile spellings and 50 parameter values, each in one bucket; the raw-path
 * mutant caught). A fetch app routes by hand: here on the WHATWG URL's pathname (so `/./` and `/../`
 * are gone), percent-decoded and with an optional trailing slash, as find-my-way and Hono's router
 * match, and it mounts one check per route with the route's own pattern,
 * `routeKey('/api/users/:id')`, all on the one limiter; the pattern is validated when the key is made.
 */
import { type RouteApp, routeKeySuite } from '@ratekeeper/adapter-contract';
import { describe, expect, it } from 'vitest';
import { rateLimit, routeKey } from '../src/index.js';
import { serveFetch } from './helpers.js';
import { rawPathKey } from './mutants/raw-path-key.js';

type Key = (pattern: string) => (request: Request, client: string | undefined) => string;

/** decoded is the path a router matches: percent-decoded (a malformed escape routes nowhere). */
const decoded = (path: string): string => {
  try {
    return decodeURIComponent(path);
  } catch {
    return '';
  }
};

const app: RouteApp<Key> = {
  name: 'fetch on Node (@hono/node-server)',
  serve(limiter, key) {
    let login = 0;
    let user = 0;
    const routes = [
      { pattern: '/api/login', matches: (path: string) => /^\/api\/login\/?$/.test(path), answer: () => (login++, new Response('login')) },
      { pattern: '/api/users/:id', matches: (path: string) => /^\/api\/users\/[^/]+\/?$/.test(path), answer: () => (user++, new Response('user')) },
    ].map((route) => ({ ...route, limit: rateLimit({ limiter, key: key(route.pattern) }) }));
    const served = serveFetch((request, env) => {
      const path = decoded(new URL(request.url).pathname);
      const route = request.method === 'POST' ? routes.find((r) => r.matches(path)) : undefined;
      if (route === undefined) return new Response('Not Found', { status: 404 });
      return route.limit.run(request, { ip: env.incoming.socket.remoteAddress }, route.answer);
    });
    return { ...served, login: () => login, user: () => user };
  },
};

routeKeySuite([app], { routeKey, rawPathKey });

describe('routeKey(pattern)', () => {
  it.each([[''], [undefined], [7]])('refuses the pattern %j when the key is made', (pattern) => {
    expect(() => routeKey(pattern as never)).toThrow(TypeError);
    expect(() => routeKey(pattern as never)).toThrow('routeKey: pattern must be a non-empty string, got');
  });
});
