/**
 * Two example server processes share one limit through one redis-server, all started here on free
 * loopback ports: a client alternating between them gets exactly 10 admitted in total, and every 429
 * carries Retry-After and the shared count. With Redis killed, both servers still answer (each by its
 * in-process fallback), never with a 5xx. Without redis-server the suite is skipped with a warning,
 * except in CI, where it fails.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, startServer, stop } from './processes.mjs';

const hasRedis = (() => {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

if (!hasRedis && process.env.CI !== 'true') console.warn('\n*** redis-server not found: the Redis example test is SKIPPED ***\n');

it.runIf(process.env.CI === 'true')('finds redis-server on the CI machine', () => {
  expect(hasRedis).toBe(true);
});

describe.runIf(hasRedis)('two servers sharing one limit through Redis', () => {
  let redis;
  let servers = [];

  beforeAll(async () => {
    redis = await startRedis();
    servers = await Promise.all([startServer('A', redis.url), startServer('B', redis.url)]);
  });

  afterAll(async () => {
    await Promise.all([...servers.map((s) => stop(s.child)), redis && stop(redis.child)]);
  });

  it('admits exactly 10 requests in total, whichever server answers', async () => {
    const answers = [];
    for (let i = 0; i < 16; i++) {
      const res = await fetch(`${servers[i % 2].url}/`);
      answers.push({ status: res.status, by: res.headers.get('x-served-by'), limit: res.headers.get('ratelimit'), retry: res.headers.get('retry-after') });
      await res.arrayBuffer();
    }
    expect(answers.map((a) => a.status)).toEqual([...Array(10).fill(200), ...Array(6).fill(429)]);
    expect(answers.slice(0, 3).map((a) => [a.by, a.limit])).toEqual([
      ['A', '"api";r=9;t=6'],
      ['B', '"api";r=8;t=12'],
      ['A', '"api";r=7;t=18'],
    ]);
    for (const denied of answers.slice(10)) expect(Number(denied.retry)).toBeGreaterThanOrEqual(1);
  });

  it('keeps both servers answering when Redis is gone, still denying what Redis denied', async () => {
    await stop(redis.child);
    for (const server of servers) {
      const res = await fetch(`${server.url}/`);
      await res.arrayBuffer();
      // Each server remembers Redis's last denial of this client until the wait Redis gave is over
      // (RedisStore's deny cache), so the outage does not hand the client a fresh quota.
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(res.headers.get('ratelimit')).toMatch(/^"api";r=0;t=\d+$/);
    }
  });
});
