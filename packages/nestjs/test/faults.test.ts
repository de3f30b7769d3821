/**
 * Fault behaviour on the real guard and, to prove each check can fail, on the guard's mutants: the
 * adapter contract's faults suite (a rejecting store never leaks its text; a 'closed' failure is a
 * 503; nothing is written or run after someone else answered). On Fastify the headers-sent mutant
 * cannot be caught, and need not be: Fastify itself stops a request whose response an onRequest hook
 * ended, before any guard runs; the real guard is still checked there.
 */
import { closedFailureIs503, faultsSuite, nothingAfterHeadersSent, secretNeverLeaks } from '@ratekeeper/adapter-contract';
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import { drivers } from './helpers.js';
import { ClosedAs429, IgnoresHeadersSent, LeaksStoreError } from './mutants/guards.js';

const [express, fastify] = drivers as [(typeof drivers)[number], (typeof drivers)[number]];

faultsSuite([express], {
  leaksStoreError: { factory: LeaksStoreError, caughtBy: /hunter2/ },
  closedAs429: { factory: ClosedAs429, caughtBy: /expected 429 to be 503/ },
  ignoresHeadersSent: { factory: IgnoresHeadersSent, caughtBy: /^(errors on the error path|downstream runs)/ },
});

describe(fastify.name, () => {
  const bucket = () => new TokenBucketLimiter({ capacity: 5, refillPerSecond: 1, name: 'b', clock: new ManualClock(0) });
  it('a limiter that rejects with a secret yields a 500 that does not contain the secret', () => secretNeverLeaks(fastify, fastify.rateLimit));
  it("a 'closed' store failure answers 503 with Retry-After", () => closedFailureIs503(fastify, fastify.rateLimit));
  it('does nothing after the headers were sent', () => nothingAfterHeadersSent(fastify, fastify.rateLimit, bucket()));
  it('the check catches a guard that lets the store error reach the client (mutant)', async () => {
    await expect(secretNeverLeaks(fastify, LeaksStoreError)).rejects.toThrow(/hunter2/);
  });
  it('the check catches a guard that answers a closed failure with 429 (mutant)', async () => {
    await expect(closedFailureIs503(fastify, ClosedAs429)).rejects.toThrow(/expected 429 to be 503/);
  });
});
