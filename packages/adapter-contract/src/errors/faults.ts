/**
 * The fault checks, written against any middleware factory so that the same harness runs the real
 * rateLimit (which must pass) and the adapter's broken variants under test/mutants/ (each of which
 * must fail the check it targets, with the message the adapter's tests name). A check throws when the
 * factory misbehaves.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ManualClock, type RateLimiter, TokenBucketLimiter } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import type { Driver } from '../driver.js';
import { asyncLimiter, expectPrintableHeaders } from '../support.js';

export const SECRET = 'redis://admin:hunter2@10.0.0.7:6379';

const bucket = (capacity = 5) => new TokenBucketLimiter({ capacity, refillPerSecond: 1, name: 'b', clock: new ManualClock(0) });

/** A limiter whose promise rejects with a secret: 500, and the secret in no byte of it. */
export async function secretNeverLeaks<F>(driver: Driver<F>, factory: F): Promise<void> {
  const broken = asyncLimiter(bucket(), () => Promise.reject(new Error(`connect ECONNREFUSED ${SECRET}`)));
  const { http, errors, ran } = driver.serve({ limiter: broken }, { factory });
  for (let i = 0; i < 2; i++) {
    const res = await http.get('/');
    expect(res.status).toBe(500);
    expect(JSON.stringify(res.headers) + res.text).not.toContain('hunter2');
    expectPrintableHeaders(res.headers);
  }
  expect(errors.map((e) => (e as Error).name)).toEqual(['RateLimiterError', 'RateLimiterError']);
  expect(ran()).toBe(0);
}

/** A 'closed' store failure answers 503 with Retry-After and the temporary-reduced-capacity problem. */
export async function closedFailureIs503<F>(driver: Driver<F>, factory: F): Promise<void> {
  const closed = asyncLimiter(bucket(), (d) => ({ ...d, allowed: false, failure: 'closed' }));
  const { http, ran } = driver.serve({ limiter: closed }, { factory });
  const res = await http.get('/');
  expect(res.status).toBe(503);
  expect(res.headers['retry-after']).toBe('1');
  expect(res.headers['ratelimit-policy']).toBe('"b";q=5;w=5');
  expect(res.headers['content-type']).toBe(driver.problemContentType ?? 'application/problem+json');
  expect(JSON.parse(res.text)).toEqual({
    type: 'https://iana.org/assignments/http-problem-types#temporary-reduced-capacity',
    title: 'Service temporarily unable to apply its rate limits',
    status: 503,
  });
  expect(ran()).toBe(0);
}

const answerEarly = (_req: IncomingMessage, res: ServerResponse) => {
  res.statusCode = 200;
  res.end('early');
};

/** When an earlier middleware already answered (and wrongly went on), nothing more is written or run. */
export async function nothingAfterHeadersSent<F>(driver: Driver<F>, factory: F, limiter: RateLimiter): Promise<void> {
  const { http, errors, ran } = driver.serve({ limiter }, { factory, before: answerEarly });
  for (let i = 0; i < 7; i++) {
    const res = await http.get('/');
    expect(res.status).toBe(200);
    expect(res.text).toBe('early');
    expect(res.headers['ratelimit']).toBeUndefined();
  }
  await new Promise(setImmediate);
  expect(errors.map(String), 'errors on the error path').toEqual([]);
  expect(ran(), 'downstream runs').toBe(0);
}

/** A mutant and the message its check must fail with. */
export interface Mutant<F> {
  readonly factory: F;
  readonly caughtBy: RegExp;
}

export interface FaultMutants<F> {
  /** Lets the store's error (and its secret) reach the client. */
  readonly leaksStoreError: Mutant<F>;
  /** Answers a closed failure with 429. */
  readonly closedAs429: Mutant<F>;
  /** Goes on after an earlier middleware sent the headers. */
  readonly ignoresHeadersSent: Mutant<F>;
}

export function faultsSuite<F>(drivers: readonly Driver<F>[], mutants: FaultMutants<F>): void {
  for (const driver of drivers) {
    describe(driver.name, () => {
      it('a limiter that rejects with a secret yields a 500 that does not contain the secret', async () => {
        await secretNeverLeaks(driver, driver.rateLimit);
      });

      it("a 'closed' store failure answers 503 with Retry-After", async () => {
        await closedFailureIs503(driver, driver.rateLimit);
      });

      it('does nothing after the headers were sent, with a sync or an async limiter', async () => {
        await nothingAfterHeadersSent(driver, driver.rateLimit, bucket());
        await nothingAfterHeadersSent(driver, driver.rateLimit, asyncLimiter(bucket()));
      });
    });
  }

  for (const driver of drivers) {
    describe(`mutants on ${driver.name}`, () => {
      it('the check catches an adapter that lets the store error reach the client', async () => {
        await expect(secretNeverLeaks(driver, mutants.leaksStoreError.factory)).rejects.toThrow(mutants.leaksStoreError.caughtBy);
      });

      it('the check catches an adapter that answers a closed failure with 429', async () => {
        await expect(closedFailureIs503(driver, mutants.closedAs429.factory)).rejects.toThrow(mutants.closedAs429.caughtBy);
      });

      it('the check catches an adapter that goes on after the headers were sent', async () => {
        const { factory, caughtBy } = mutants.ignoresHeadersSent;
        await expect(nothingAfterHeadersSent(driver, factory, bucket())).rejects.toThrow(caughtBy);
        await expect(nothingAfterHeadersSent(driver, factory, asyncLimiter(bucket()))).rejects.toThrow(caughtBy);
      });
    });
  }
}
