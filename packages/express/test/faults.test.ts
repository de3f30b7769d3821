/**
 * Fault behaviour, run on the real middleware and, to prove the checks can fail, on the mutants.
 */
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';
import { asyncBucket, closedFailureIs503, nothingAfterHeadersSent, secretNeverLeaks, syncBucket } from './faults.js';
import { expresses } from './helpers.js';
import { closedAs429 } from './mutants/closed-as-429.js';
import { forwardsRawError } from './mutants/forwards-raw-error.js';
import { ignoresHeadersSent } from './mutants/ignores-headers-sent.js';

describe.each(expresses)('%s', (_, express) => {
  it('a limiter that rejects with a secret yields a 500 that does not contain the secret', async () => {
    await secretNeverLeaks(express, rateLimit);
  });

  it("a 'closed' store failure answers 503 with Retry-After", async () => {
    await closedFailureIs503(express, rateLimit);
  });

  it('writes nothing after the headers were sent, with a sync or an async limiter', async () => {
    await nothingAfterHeadersSent(express, rateLimit, syncBucket());
    await nothingAfterHeadersSent(express, rateLimit, asyncBucket());
  });
});

describe.each(expresses)('mutants on %s', (_, express) => {
  it('the check catches an adapter that forwards the raw store error', async () => {
    await expect(secretNeverLeaks(express, forwardsRawError)).rejects.toThrow(/hunter2/);
  });

  it('the check catches an adapter that answers a closed failure with 429', async () => {
    await expect(closedFailureIs503(express, closedAs429)).rejects.toThrow(/expected 429 to be 503/);
  });

  it('the check catches an adapter that writes after the headers were sent', async () => {
    await expect(nothingAfterHeadersSent(express, ignoresHeadersSent, syncBucket())).rejects.toThrow(/^errors on the error path/);
    await expect(nothingAfterHeadersSent(express, ignoresHeadersSent, asyncBucket())).rejects.toThrow(/^errors on the error path/);
  });
});
