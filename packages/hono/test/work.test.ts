/** A limit covers the work it admits: the adapter contract's work suite (memory store and Redis). */
import { workSuite } from '@ratekeeper/adapter-contract';
import { driver } from './helpers.js';
import { releasesAtDisconnect } from './mutants/ends-at-disconnect.js';

workSuite([driver], { releasesAtDisconnect: releasesAtDisconnect });
