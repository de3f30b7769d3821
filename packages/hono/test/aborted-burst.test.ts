/**
 * Delay mode over real HTTP on Hono, on the memory store and on a real redis-server: the units of
 * the requests whose clients leave during a burst come back, exactly, while the requests booked
 * behind them keep their instants; cancels that succeed only for the latest booking (mutants) are
 * caught (adapter contract: aborted-burst.ts).
 */
import { abortedBurstSuite } from '@ratekeeper/adapter-contract';
import { driver } from './helpers.js';

abortedBurstSuite([driver]);
