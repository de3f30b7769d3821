/**
 * The Redis suites need real redis-server processes. In CI a missing binary fails here, loudly;
 * elsewhere the suites skip with a warning (see support/requirements.ts).
 */
import { expect, it } from 'vitest';
import { inCI } from './support/requirements.js';
import { hasRedis } from './support/redis-server.js';

it.runIf(inCI)('finds redis-server and redis-cli on the CI machine', () => {
  expect(hasRedis, 'redis-server and redis-cli must be installed in CI (.ci/run installs them)').toBe(true);
});

it.runIf(!inCI && !hasRedis)('warns that the Redis suites are skipped without redis-server', () => {
  console.warn('*** @ratekeeper/redis: Redis suites skipped, redis-server is not installed ***');
});
