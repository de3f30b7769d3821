/**
 * Delay mode over real HTTP on Node (@hono/node-server, which aborts `c.req.raw.signal` when the
 * client's connection closes): the adapter contract's delay suite, with the mutant that never
 * listens for the signal's abort, so never releases the wait of a client that left.
 */
import { delaySuite } from '@ratekeeper/adapter-contract';
import { driver } from './helpers.js';
import { forgetsRelease } from './mutants/forgets-release.js';

delaySuite([driver], { forgetsRelease });
