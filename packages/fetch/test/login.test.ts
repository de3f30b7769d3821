/**
 * The login recipe over real HTTP on @ratekeeper/fetch, on the memory store and on a real redis-server: six
 * logins in flight together that all succeed leave no ban, six that fail ban for the hour with an exact
 * Retry-After, and bans that outlive their refunds (mutants) are caught (adapter contract: login.ts).
 */
import { loginSuite } from '@ratekeeper/adapter-contract';
import { driver } from './helpers.js';

loginSuite([driver]);
