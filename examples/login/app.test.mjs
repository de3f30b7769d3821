// The login example through a real socket with a ManualClock: failed logins count, successful ones
// do not; the sixth failure in 15 minutes bans the username for an hour with an honest Retry-After.
import { loginSuite } from './suite.mjs';

loginSuite('memory', undefined);
