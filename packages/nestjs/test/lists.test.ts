/** The shared allow/deny list contract (adapter-contract/src/client/lists.ts) through the Nest guard. */
import { listsSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';

listsSuite(drivers);
