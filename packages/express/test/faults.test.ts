/**
 * Fault behaviour, run on the real middleware and, to prove the checks can fail, on the Express
 * mutants: the adapter contract's faults suite. Express reports a write after the headers were sent
 * as an error, so that mutant is caught on the error path.
 */
import { faultsSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';
import { closedAs429 } from './mutants/closed-as-429.js';
import { forwardsRawError } from './mutants/forwards-raw-error.js';
import { ignoresHeadersSent } from './mutants/ignores-headers-sent.js';

faultsSuite(drivers, {
  leaksStoreError: { factory: forwardsRawError, caughtBy: /hunter2/ },
  closedAs429: { factory: closedAs429, caughtBy: /expected 429 to be 503/ },
  ignoresHeadersSent: { factory: ignoresHeadersSent, caughtBy: /^errors on the error path/ },
});
