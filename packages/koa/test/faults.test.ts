/**
 * Fault behaviour, run on the real middleware and, to prove the checks can fail, on the Koa mutants:
 * the adapter contract's faults suite. Koa silently drops a header set after the response was sent,
 * so the headers-sent mutant is caught by the downstream middleware it wrongly runs.
 */
import { faultsSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';
import { closedAs429 } from './mutants/closed-as-429.js';
import { ignoresHeadersSent } from './mutants/ignores-headers-sent.js';
import { reportsStoreError } from './mutants/reports-store-error.js';

faultsSuite(drivers, {
  leaksStoreError: { factory: reportsStoreError, caughtBy: /hunter2/ },
  closedAs429: { factory: closedAs429, caughtBy: /expected 429 to be 503/ },
  ignoresHeadersSent: { factory: ignoresHeadersSent, caughtBy: /^downstream runs/ },
});
