/**
 * Regression (core, found through this adapter): a token bucket whose key is first seen at an instant
 * that is not a whole number of refill intervals loses the last token of its burst to floating-point
 * rounding. capacity 3 at 4/s (interval 250 ms), first request at t = 7 ms: u = 0.028, and after two
 * admissions tat − u evaluates to 2.0000000000000004, so the third request of a full bucket is denied.
 * Fixed in packages/core/src/algorithms/token-bucket.ts (slackOf); this file keeps it fixed.
 */
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import Fastify from 'fastify';
import { expect, it } from 'vitest';
import { rateLimit } from '../../src/index.js';

it('admits the whole burst of a bucket first used between two refill instants', async () => {
  const clock = new ManualClock(7);
  const app = Fastify();
  await app.register(rateLimit, { limiter: new TokenBucketLimiter({ capacity: 3, refillPerSecond: 4, clock }) });
  app.get('/', async () => 'ok');
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) statuses.push((await app.inject('/')).statusCode);
  expect(statuses).toEqual([200, 200, 200, 429]);
});
