/**
 * Limits from who the caller is (async hooks, plans, the decision on the request, a client gone during
 * the lookup): the adapter contract's per-caller suite on every Koa major, with the mutant that does
 * not await an async key.
 */
import { perCallerSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';
import { unawaitedKey } from './mutants/unawaited-key.js';

perCallerSuite(drivers, { unawaitedKey });
