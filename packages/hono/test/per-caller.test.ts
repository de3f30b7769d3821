/**
 * Limits from who the caller is, over real HTTP: async key, skip, cost and plan awaited (mutant: a key
 * not awaited), a rejected lookup on the error path, a client gone during the lookup (its Request's
 * signal aborted by @hono/node-server) not counted and the route not run (mutant: a check that never
 * looks at the signal), the decision on the request, plans.
 */
import { perCallerSuite } from '@ratekeeper/adapter-contract';
import { driver } from './helpers.js';
import { ignoresGone } from './mutants/ignores-gone.js';
import { unawaitedKey } from './mutants/unawaited-key.js';

perCallerSuite([driver], { unawaitedKey, ignoresGone });
