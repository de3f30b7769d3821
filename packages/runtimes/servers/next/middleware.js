// Next.js middleware (middleware.js, Next's Edge runtime) with @ratekeeper/fetch, for CVE-2025-29927:
// before Next 15.2.3, a request carrying `x-middleware-subrequest: middleware:middleware:…` skipped
// every middleware, rate limits included. Under /mw/<id> the middleware answers itself ('middleware',
// 200, or the 429): a request that reached the route handler instead (servers/next/app, which answers
// 404 for /mw) went around it. /mw-skip/<id> is the mutant: a limit that skips a request carrying the
// header, as the vulnerable Next did. Each <id> is its own bucket of 3, on a clock that never moves.
// (Next 16 warns that the middleware file convention is deprecated in favour of proxy.js; middleware.js,
// the file the advisory was about, still runs.)
import { FixedWindowLimiter, ManualClock } from '@ratekeeper/core';
import { rateLimit } from '@ratekeeper/fetch';

const limiter = new FixedWindowLimiter({ limit: 3, windowMs: 60_000, clock: new ManualClock(1_000_000) });
const byId = (request) => new URL(request.url).pathname.split('/')[2] ?? '';
const limit = rateLimit({ limiter, key: byId });
const skipping = rateLimit({ limiter, key: (request) => `skip:${byId(request)}`, skip: (request) => request.headers.has('x-middleware-subrequest') });

export async function middleware(request) {
  const check = new URL(request.url).pathname.startsWith('/mw-skip/') ? skipping : limit;
  return check.run(request, { ip: '127.0.0.1' }, () => new Response('middleware'));
}

export const config = { matcher: ['/mw/:path*', '/mw-skip/:path*'] };
