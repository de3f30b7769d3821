/**
 * Limits from who the caller is (async hooks, plans, the decision on the request, a client gone during
 * the lookup): the adapter contract's per-caller suite on both platforms, with the mutant that does not
 * await an async key.
 */
import { perCallerSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';
import { UnawaitedKey } from './mutants/guards.js';

perCallerSuite(drivers, { unawaitedKey: UnawaitedKey });
