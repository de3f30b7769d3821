/**
 * The limited-response handler's status: a custom `handler` runs with the status already set (429,
 * or 503 when a store failing 'closed' decided), so a handler that only writes a body (Express's
 * `res.send(…)`, Koa's `ctx.body = …`, Hono's `c.text(…)`, fetch's `new Response(…)`, Fastify's
 * `reply.send(…)`) answers a denial with that status, never with the framework's default 200. A
 * handler that sets a status keeps it. Every adapter runs this suite through its driver, over HTTP.
 */
import { type Decision, ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import type { Answer, Driver } from '../driver.js';
import { asyncLimiter } from '../support.js';

const bucket = (capacity: number) => new TokenBucketLimiter({ capacity, refillPerSecond: 1, name: 'b', clock: new ManualClock(0) });

/** A neutral handler that writes a body and no status (Answer.status left out). */
const bodyOnly = (decision: Decision): Answer => ({ body: { error: 'slow down', retryAfterMs: decision.retryAfterMs } });

export function handlerStatusSuite<F>(drivers: readonly Driver<F>[]): void {
  for (const driver of drivers) {
    describe(`${driver.name}: the limited-response handler's status`, () => {
      it.each(['sync', 'async'] as const)('a %s handler that sets no status answers 429, never 200', async (style) => {
        const handler = style === 'sync' ? bodyOnly : async (d: Decision) => (await Promise.resolve(), bodyOnly(d));
        const { http, ran } = driver.serve({ limiter: bucket(1), handler });
        await http.get('/').expect(200);
        const res = await http.get('/');
        expect(res.status).toBe(429);
        expect(res.headers['retry-after']).toBe('1');
        expect(JSON.parse(res.text)).toEqual({ error: 'slow down', retryAfterMs: 1000 });
        expect(ran()).toBe(1);
      });

      it('a handler that sets a status keeps it', async () => {
        const { http } = driver.serve({ limiter: bucket(1), handler: () => ({ status: 403, body: { error: 'no' } }) });
        await http.get('/').expect(200);
        const res = await http.get('/');
        expect(res.status).toBe(403);
        expect(JSON.parse(res.text)).toEqual({ error: 'no' });
      });

      it("a handler that sets no status answers 503 when a store failing 'closed' decided", async () => {
        const closed = asyncLimiter(bucket(5), (d) => ({ ...d, allowed: false, failure: 'closed' }));
        const { http, ran } = driver.serve({ limiter: closed, handler: bodyOnly });
        const res = await http.get('/');
        expect(res.status).toBe(503);
        expect(ran()).toBe(0);
      });
    });
  }
}
