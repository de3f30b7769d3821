/**
 * describeRedis runs a suite against real redis-server processes, or skips it loudly when the binary
 * is missing on a developer machine. In CI (CI=true) a missing binary is a failure, never a skip: see
 * test/requirements.test.ts.
 */
import { describe } from 'vitest';
import { hasRedis } from './redis-server.js';

export const inCI = process.env['CI'] === 'true';

if (!hasRedis && !inCI) {
  console.warn(
    '\n*** redis-server/redis-cli not found: the Redis suites of @ratekeeper/redis are SKIPPED. ***\n' +
      '*** Install them (apt-get install redis-server) to run them; CI fails instead of skipping. ***\n',
  );
}

export const describeRedis = (hasRedis ? describe : describe.skip) as typeof describe.skip;
