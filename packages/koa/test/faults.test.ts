/**
 * Fault behaviour, run on the real middleware and, to prove the checks can fail, on the mutants.
 */
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';
import { asyncBucket, closedFailureIs503, nothingAfterHeadersSent, secretNeverLeaks, syncBucket } from './faults.js';
import { koas } from './helpers.js';
import { closedAs429 } from './mutants/closed-as-429.js';
import { ignoresHeadersSent } from './mutants/ignores-headers-sent.js';
import { reportsStoreError } from './mutants/reports-store-error.js';

describe.each(koas)('%s', (_, Koa) => {
  it('a limiter that rejects with a secret yields a 500 that does not contain the secret', async () => {
    await secretNeverLeaks(Koa, rateLimit);
  });

  it("a 'closed' store failure answers 503 with Retry-After", async () => {
    await closedFailureIs503(Koa, rateLimit);
  });

  it('does nothing after the headers were sent, with a sync or an async limiter', async () => {
    await nothingAfterHeadersSent(Koa, rateLimit, syncBucket());
    await nothingAfterHeadersSent(Koa, rateLimit, asyncBucket());
  });
});

describe.each(koas)('mutants on %s', (_, Koa) => {
  it('the check catches an adapter that reports the store error to the client', async () => {
    await expect(secretNeverLeaks(Koa, reportsStoreError)).rejects.toThrow(/hunter2/);
  });

  it('the check catches an adapter that answers a closed failure with 429', async () => {
    await expect(closedFailureIs503(Koa, closedAs429)).rejects.toThrow(/expected 429 to be 503/);
  });

  it('the check catches an adapter that goes on after the headers were sent', async () => {
    await expect(nothingAfterHeadersSent(Koa, ignoresHeadersSent, syncBucket())).rejects.toThrow(/^downstream runs/);
    await expect(nothingAfterHeadersSent(Koa, ignoresHeadersSent, asyncBucket())).rejects.toThrow(/^downstream runs/);
  });
});
