/** A limit covers the work it admits: the adapter contract's work suite (memory store and Redis) on both platforms. */
import { workSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';
import { ReleasesAtDisconnect } from './mutants/guards.js';

workSuite(drivers, { releasesAtDisconnect: ReleasesAtDisconnect });
