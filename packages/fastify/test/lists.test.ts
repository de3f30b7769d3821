/** The shared allow/deny list contract (adapter-contract/src/client/lists.ts) through Fastify over real HTTP. */
import { listsSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './driver.js';

listsSuite(drivers);
