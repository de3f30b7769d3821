/**
 * The alias attack, on real servers over HTTP: a POST of 1,000 aliased `login` mutations costs 1,000
 * units, and once those are spent the 1,001st unit is refused with nothing executed; one POST of 1,001
 * aliases against a budget of 1,000 is refused whole (no resolver runs, and waiting cannot help). A
 * batch of 50 operations costs 50. Yoga and Apollo alike.
 */
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { afterEach, describe, expect, it } from 'vitest';
import { apolloCostBudget, useCostBudget } from '../src/index.js';
import { Runs, schemaWith } from './support/schema.js';
import { aliases, post, type Served, serveApollo, serveYoga } from './support/servers.js';

const SERVERS = [
  ['GraphQL Yoga', serveYoga, useCostBudget],
  ['Apollo Server', serveApollo, apolloCostBudget],
] as const;

describe.each(SERVERS)('%s', (_name, serve, plugin) => {
  let served: Served | undefined;
  afterEach(async () => served?.close());

  const start = async (batching = false) => {
    const runs = new Runs();
    const clock = new ManualClock(0);
    const limiter = new TokenBucketLimiter({ capacity: 1000, refillPerSecond: 10, clock });
    served = await serve(schemaWith(runs), plugin({ limiter, key: () => 'client' }), { batching });
    return { runs, clock, limiter, url: served.url };
  };

  it('charges 1,000 aliased logins 1,000 units and refuses the 1,001st unit without running a resolver', async () => {
    const { runs, limiter, url } = await start();
    const first = await post(url, { query: aliases(1000) });
    expect(first.status).toBe(200);
    expect(first.body.extensions.cost).toEqual({
      requestedQueryCost: 1000,
      actualQueryCost: 1000,
      throttleStatus: { maximumAvailable: 1000, currentlyAvailable: 0, restoreRate: 10 },
    });
    expect(runs.counts.get('login')).toBe(1000);
    const next = await post(url, { query: aliases(1) });
    expect(next.status).toBe(429);
    expect(next.retryAfter).toBe('1');
    expect(next.body.errors[0].extensions).toEqual({ code: 'THROTTLED', retryAfterSeconds: 1 });
    expect(next.body.data ?? null).toBeNull();
    expect(runs.counts.get('login')).toBe(1000);
    expect(limiter.peek('client').remaining).toBe(0);
  });

  it('refuses 1,001 aliases in one POST whole against a budget of 1,000: nothing runs, no Retry-After', async () => {
    const { runs, limiter, url } = await start();
    const answer = await post(url, { query: aliases(1001) });
    expect(answer.status).toBe(429);
    expect(answer.retryAfter).toBeNull();
    expect(answer.body.errors[0].extensions).toEqual({ code: 'THROTTLED' });
    expect(answer.body.extensions.cost).toEqual({
      requestedQueryCost: 1001,
      actualQueryCost: null,
      throttleStatus: { maximumAvailable: 1000, currentlyAvailable: 1000, restoreRate: 10 },
    });
    expect(runs.total).toBe(0);
    expect(limiter.peek('client').remaining).toBe(999);
  });

  it('charges a batch of 50 operations 50 units', async () => {
    const { runs, limiter, url } = await start(true);
    const batch = Array.from({ length: 50 }, (_, i) => ({ query: `mutation { login(user: "u${i}", password: "p") }` }));
    const answer = await post(url, batch);
    expect(answer.status).toBe(200);
    expect(answer.body).toHaveLength(50);
    expect(runs.counts.get('login')).toBe(50);
    expect(limiter.peek('client', 1).remaining).toBe(1000 - 50 - 1);
  });
});
