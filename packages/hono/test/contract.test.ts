/**
 * The adapter contract on Hono 4, served on Node over real HTTP: counting (app-wide, on a sub-app at
 * /api, which Hono runs for every path under it, and per route), options, Retry-After and bodies,
 * client addresses (getConnInfo, or ip(c) behind a proxy; none is never a shared bucket), errors
 * through app.onError, faults and aborted clients. The mutants under test/mutants/ prove the fault
 * checks can fail.
 *
 * The contract's headers-sent check (nothingAfterHeadersSent) has no meaning on Hono: middleware
 * returns or sets `c.res`, and nothing reaches the socket before the whole chain has answered.
 */
import {
  abortSuite,
  closedFailureIs503,
  countingSuite,
  errorsSuite,
  firstRequestRoutesSuite,
  ipSuite,
  listsSuite,
  optionsSuite,
  retrySuite,
  secretNeverLeaks,
} from '@ratekeeper/adapter-contract';
import { describe, expect, it } from 'vitest';
import { driver } from './helpers.js';
import { closedAs429 } from './mutants/closed-as-429.js';
import { errorsOnAbort } from './mutants/errors-on-abort.js';
import { reportsStoreError } from './mutants/reports-store-error.js';

countingSuite([driver], { routerCounts: 3 });
optionsSuite([driver]);
firstRequestRoutesSuite([driver]);
listsSuite([driver]);
retrySuite([driver]);
errorsSuite([driver]);
abortSuite([driver], { errorsOnAbort });
ipSuite(
  [driver],
  [
    { label: 'ip(c) reading the last X-Forwarded-For hop', proxy: true, xff: '203.0.113.7, 198.51.100.9', want: '198.51.100.9' },
    { label: 'ip(c) reading the second hop from the right', proxy: { hops: 2 }, xff: '192.0.2.1, 203.0.113.7, 198.51.100.9', want: '203.0.113.7' },
  ],
);

describe(`${driver.name} faults`, () => {
  it('a limiter that rejects with a secret yields a 500 that does not contain the secret', async () => {
    await secretNeverLeaks(driver, driver.rateLimit);
  });
  it("a 'closed' store failure answers 503 with Retry-After", async () => {
    await closedFailureIs503(driver, driver.rateLimit);
  });
  it('the check catches an adapter that lets the store error reach the client (mutant)', async () => {
    await expect(secretNeverLeaks(driver, reportsStoreError)).rejects.toThrow(/hunter2/);
  });
  it('the check catches an adapter that answers a closed failure with 429 (mutant)', async () => {
    await expect(closedFailureIs503(driver, closedAs429)).rejects.toThrow(/expected 429 to be 503/);
  });
});
