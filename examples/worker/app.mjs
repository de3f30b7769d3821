/**
 * The fetch example app: a plain `(request, ip) => Response` handler with @ratekeeper/fetch, which
 * runs as it is on Bun, Deno, Cloudflare Workers or Node; the server script only says where the client
 * address comes from. Three limits, keyed by that address:
 *
 * - global, every route: a token bucket of 100 refilled at 10 per second (bursts of 100, then 10/s);
 * - POST /login: at most 5 per minute, sliding window (brute-force protection);
 * - GET /search: 5 per second and 8 per minute.
 *
 * A route with its own limit checks it together with the global one in one CompositeLimiter (the
 * global bucket is the same object in each): all or nothing, so a request a route's limit denies
 * costs the global bucket nothing, and one check writes every item of the RateLimit headers.
 * `clock` is injectable so the test can move time by hand; `store` is where the limits live (default:
 * this process's memory; the Worker passes a DurableObjectStore, so every isolate shares them).
 */
import { CompositeLimiter, SlidingWindowLimiter, TokenBucketLimiter, systemClock } from '@ratekeeper/core';
import { rateLimit } from '@ratekeeper/fetch';

/** createApp returns the handler; each call has its own, empty limiters. */
export function createApp({ clock = systemClock, store } = {}) {
  const shared = store === undefined ? { clock } : { clock, store };
  const global = new TokenBucketLimiter({ capacity: 100, refillPerSecond: 10, name: 'global', ...shared });
  const everywhere = rateLimit({ limiter: global });
  const login = rateLimit({ limiter: new CompositeLimiter([global, new SlidingWindowLimiter({ limit: 5, windowMs: 60_000, name: 'login', ...shared })]) });
  const search = rateLimit({
    limiter: new CompositeLimiter([
      global,
      new TokenBucketLimiter({ capacity: 5, refillPerSecond: 5, name: 'search-1s', ...shared }),
      new SlidingWindowLimiter({ limit: 8, windowMs: 60_000, name: 'search-1m', ...shared }),
    ]),
  });

  const routes = {
    'GET /': [everywhere, () => Response.json({ hello: 'world' })],
    'POST /login': [login, () => Response.json({ loggedIn: false, reason: 'this example checks no passwords' })],
    'GET /search': [search, (url) => Response.json({ query: url.searchParams.get('q') ?? '', results: [] })],
  };
  const notFound = [everywhere, () => new Response('Not Found', { status: 404 })];

  return async function handle(request, ip) {
    const url = new URL(request.url);
    const [limit, route] = routes[`${request.method} ${url.pathname}`] ?? notFound;
    const limited = await limit(request, { ip });
    return limited ?? limit.headers(request, await route(url));
  };
}
