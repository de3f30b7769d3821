/**
 * No error in the decision path loses a request or the process, on a synchronous and an asynchronous
 * limiter: the adapter contract's decision-errors suite on every Express major, plus the mutant that
 * wires the async answer as `outcome.then(respond, next)` with a respond that can throw (the crash of
 * issue 7, item 4), which the suite must catch as an unhandled rejection.
 */
import { decisionErrorsSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';
import { thenRespond } from './mutants/then-respond.js';

decisionErrorsSuite(drivers, [
  {
    factory: thenRespond,
    mode: 'async',
    case: 'the response refuses the RateLimit header',
    caughtBy: /^unhandledRejection: TypeError: Invalid character in header content \["RateLimit"\]/,
  },
  { factory: thenRespond, mode: 'async', case: 'the response refuses the Retry-After header of a denial', caughtBy: /^unhandledRejection: TypeError: Invalid character/ },
]);
