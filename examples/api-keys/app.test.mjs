// The API-key example through a real socket with a ManualClock: plans found by an async lookup,
// each with its own policy and body, and every request charged by the size of its response.
import { apiKeysSuite } from './suite.mjs';

apiKeysSuite('memory', undefined);
