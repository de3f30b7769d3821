/**
 * The rate-limited API the example calls: a plain node:http server that admits `capacity` requests at
 * once and then `refillPerSecond` per second (a token bucket, ratekeeper's own), answering everything
 * past that with 429 and an honest Retry-After, as a third-party API would.
 */
import { createServer } from 'node:http';
import { TokenBucketLimiter, retryAfterSeconds } from '@ratekeeper/core';

/** startApi listens on a free loopback port and resolves to { url, close }. */
export function startApi({ capacity, refillPerSecond }) {
  const limiter = new TokenBucketLimiter({ capacity, refillPerSecond, name: 'api' });
  const server = createServer((req, res) => {
    const decision = limiter.consume('everyone');
    if (decision.allowed) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true }));
    } else {
      res.writeHead(429, { 'retry-after': String(retryAfterSeconds(decision)) }).end();
    }
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({ url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((done) => server.close(done)) });
    });
  });
}
