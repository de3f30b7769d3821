/** A request whose client left is judged by its handler's answer: the adapter contract's aborted-outcome suite (memory store and Redis). */
import { abortedOutcomeSuite } from '@ratekeeper/adapter-contract';
import { driver } from './helpers.js';
import { reportsStatusAtDisconnect } from './mutants/status-at-disconnect.js';

abortedOutcomeSuite([driver], { statusAtDisconnect: reportsStatusAtDisconnect });
