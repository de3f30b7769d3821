/**
 * The fair floor of the HTTP benchmark: the cheapest hand-written middleware that does the job a
 * rate limiter visibly does on each framework, so that a limiter's cost can be read against the work
 * no limiter can avoid rather than against a server that does nothing.
 *
 * Per request it reads the socket's address, decides on a token bucket kept in a `Map` (one entry per
 * address, refilled from `performance.now()`), and writes the same two draft-10 fields ratekeeper
 * writes by default: `RateLimit-Policy` (a constant string) and `RateLimit` (`r` and `t` built per
 * request). A denied request gets `429`, `Retry-After` and a fixed `application/problem+json` body.
 * It validates nothing, has no options, no store interface, no failure policy and no proxy check: it is
 * what a user would write by hand for this one server, in each framework's own idiom.
 */

const PROBLEM = 'application/problem+json';
const BODY = JSON.stringify({
  type: 'https://iana.org/assignments/http-problem-types#quota-exceeded',
  title: 'Request cannot be satisfied as assigned quota has been exceeded',
  status: 429,
  detail: 'Retry after 1 s.',
  'violated-policies': ['floor'],
});

/**
 * floorBucket returns `take(address)`: it spends one token of that address's bucket (capacity
 * `capacity`, `refillPerSecond` tokens a second) and answers `{ allowed, remaining, resetSeconds,
 * retrySeconds }`, plus `policy`, the constant RateLimit-Policy value. The answer object is reused.
 */
export function floorBucket(capacity, refillPerSecond) {
  const perMs = refillPerSecond / 1000;
  const buckets = new Map();
  const answer = { allowed: true, remaining: 0, resetSeconds: 0, retrySeconds: 0 };
  const policy = `"floor";q=${capacity};w=${Math.ceil(capacity / refillPerSecond)}`;
  function take(address) {
    const now = performance.now();
    let b = buckets.get(address);
    if (b === undefined) {
      b = { tokens: capacity, at: now };
      buckets.set(address, b);
    }
    const tokens = Math.min(capacity, b.tokens + (now - b.at) * perMs);
    b.at = now;
    answer.allowed = tokens >= 1;
    b.tokens = answer.allowed ? tokens - 1 : tokens;
    answer.remaining = Math.floor(b.tokens);
    answer.resetSeconds = Math.ceil((capacity - b.tokens) / perMs / 1000);
    answer.retrySeconds = answer.allowed ? 0 : Math.max(1, Math.ceil((1 - b.tokens) / perMs / 1000));
    return answer;
  }
  return { take, policy };
}

const limitField = (a) => `"floor";r=${a.remaining};t=${a.allowed ? a.resetSeconds : a.retrySeconds}`;

/** expressFloor is the floor as an Express middleware. */
export function expressFloor(capacity, refillPerSecond) {
  const { take, policy } = floorBucket(capacity, refillPerSecond);
  return function floor(req, res, next) {
    const a = take(req.socket.remoteAddress);
    res.setHeader('RateLimit-Policy', policy);
    res.setHeader('RateLimit', limitField(a));
    if (a.allowed) return next();
    res.statusCode = 429;
    res.setHeader('Retry-After', String(a.retrySeconds));
    res.setHeader('Content-Type', PROBLEM);
    res.end(BODY);
  };
}

/** fastifyFloor is the floor as a Fastify onRequest hook. */
export function fastifyFloor(capacity, refillPerSecond) {
  const { take, policy } = floorBucket(capacity, refillPerSecond);
  return function floor(request, reply, done) {
    const a = take(request.socket.remoteAddress);
    reply.header('RateLimit-Policy', policy);
    reply.header('RateLimit', limitField(a));
    if (a.allowed) return done();
    reply.code(429).header('Retry-After', String(a.retrySeconds)).type(PROBLEM).send(BODY);
  };
}

/** koaFloor is the floor as a Koa middleware. */
export function koaFloor(capacity, refillPerSecond) {
  const { take, policy } = floorBucket(capacity, refillPerSecond);
  return function floor(ctx, next) {
    const a = take(ctx.req.socket.remoteAddress);
    ctx.set('RateLimit-Policy', policy);
    ctx.set('RateLimit', limitField(a));
    if (a.allowed) return next();
    ctx.status = 429;
    ctx.set('Retry-After', String(a.retrySeconds));
    ctx.type = PROBLEM;
    ctx.body = BODY;
  };
}

/** honoFloor is the floor as a Hono middleware; `address(c)` reads the client address (getConnInfo on Node). */
export function honoFloor(capacity, refillPerSecond, address) {
  const { take, policy } = floorBucket(capacity, refillPerSecond);
  return function floor(c, next) {
    const a = take(address(c));
    c.header('RateLimit-Policy', policy);
    c.header('RateLimit', limitField(a));
    if (a.allowed) return next();
    return c.body(BODY, 429, { 'Retry-After': String(a.retrySeconds), 'Content-Type': PROBLEM });
  };
}

/**
 * fetchFloor wraps a `(request) => Response` handler with the floor; `address(request, ...rest)` reads
 * the client address from the runtime's arguments. The allowed path sets the two fields on the
 * handler's own Response (mutable headers, as `new Response(...)` makes); a denial builds its 429.
 */
export function fetchFloor(capacity, refillPerSecond, handler, address) {
  const { take, policy } = floorBucket(capacity, refillPerSecond);
  return function floor(request, ...rest) {
    const a = take(address(request, ...rest));
    if (!a.allowed) {
      return new Response(BODY, {
        status: 429,
        headers: { 'RateLimit-Policy': policy, RateLimit: limitField(a), 'Retry-After': String(a.retrySeconds), 'Content-Type': PROBLEM },
      });
    }
    const response = handler(request);
    response.headers.set('RateLimit-Policy', policy);
    response.headers.set('RateLimit', limitField(a));
    return response;
  };
}
