// Section redis/composite: two limits per decision (a token bucket and a sliding window on the same
// key). ratekeeper decides both in one script call; rate-limiter-flexible's RateLimiterUnion makes one
// call per limit. Same server, connection, flags and table as redis/stores.
import { composite } from './_contenders.mjs';
import { runSection } from './stores.mjs';

export async function run(args) {
  await runSection(args, composite(), 'rate-limiter-flexible RateLimiterUnion (2 calls)');
}
