/**
 * Counting by outcome and settling the real cost, through a real app of the driver's framework:
 * failed responses given back (skipFailedRequests), successful ones given back
 * (skipSuccessfulRequests), an error answered by the framework counted as the outcome it is, and the
 * cost settled by the response's size after it is sent, to the exact unit.
 */
import { FixedWindowLimiter, ManualClock } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import type { Driver } from '../driver.js';

const window = (limit: number) => new FixedWindowLimiter({ limit, windowMs: 60_000, name: 'w', clock: new ManualClock(0) });

export function outcomeSuite<F>(drivers: readonly Driver<F>[]): void {
  for (const driver of drivers) {
    describe(driver.name, () => {
      it('gives failed responses their charge back (skipFailedRequests)', async () => {
        const { http } = driver.serve({ limiter: window(2), key: () => 'k', countOutcome: (o) => o.status < 400 });
        const statuses: number[] = [];
        for (const path of ['/?status=503', '/?status=404', '/?status=500', '/', '/', '/', '/?status=503']) statuses.push((await http.get(path)).status);
        expect(statuses).toEqual([503, 404, 500, 200, 200, 429, 429]);
      });

      it('gives successful responses their charge back (skipSuccessfulRequests): only failed logins count', async () => {
        const { http } = driver.serve({ limiter: window(2), key: () => 'k', countOutcome: (o) => o.status >= 400 });
        const statuses: number[] = [];
        for (const path of ['/', '/', '/', '/?status=401', '/', '/?status=401', '/']) statuses.push((await http.get(path)).status);
        expect(statuses).toEqual([200, 200, 200, 401, 200, 401, 429]);
      });

      it('settles the cost by the response size after it is sent, to the exact unit', async () => {
        const limiter = window(10);
        const { http } = driver.serve({ limiter, key: () => 'k', settle: (o) => Math.ceil((o.contentLength ?? 0) / 100) });
        await http.get('/?bytes=250').expect(200).expect('RateLimit', '"w";r=9;t=60');
        expect(limiter.peek('k').remaining).toBe(10 - 3 - 1);
        await http.get('/?bytes=10').expect(200);
        await http.get('/?bytes=0').expect(200);
        expect(limiter.peek('k').remaining).toBe(10 - 4 - 1);
        await http.get('/?bytes=1000').expect(200);
        expect(limiter.peek('k').allowed).toBe(false);
        await http.get('/').expect(429);
      });
    });
  }
}
