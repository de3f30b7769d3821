/**
 * The mutants of this package (test/support/mutants.ts), each caught in process by the check that
 * holds the real plugin to its contract: `alias-once` by the alias attack (1,000 aliased logins must
 * cost 1,000 and spend the budget), `refund-misread` by the refund check (the budget must hold its
 * size less the actual cost). The refund mutant is also caught across processes
 * (budget-processes.test.ts).
 */
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { afterEach, describe, expect, it } from 'vitest';
import * as real from '../src/index.js';
import { buildMutant } from './support/mutants.js';
import { Runs, schemaWith } from './support/schema.js';
import { aliases, post, type Served, serveYoga } from './support/servers.js';

type Module = Pick<typeof real, 'useCostBudget'>;

let served: Served | undefined;
afterEach(async () => served?.close());

async function serve(module: Module) {
  const limiter = new TokenBucketLimiter({ capacity: 1000, refillPerSecond: 1, clock: new ManualClock(0) });
  const runs = new Runs();
  served = await serveYoga(schemaWith(runs), module.useCostBudget({ limiter, key: () => 'client' }));
  return { limiter, runs, url: served.url };
}

/** aliasCheck: 1,000 aliases cost 1,000, and the next login is refused without running. */
async function aliasCheck(module: Module): Promise<void> {
  const { limiter, runs, url } = await serve(module);
  const first = await post(url, { query: aliases(1000) });
  expect(first.body.extensions.cost.requestedQueryCost).toBe(1000);
  expect((await post(url, { query: aliases(1) })).status).toBe(429);
  expect(runs.counts.get('login')).toBe(1000);
  expect(limiter.peek('client').allowed).toBe(false);
}

/** refundCheck: ten operations estimated at 10 that cost 3 leave the budget at 1000 − 30. */
async function refundCheck(module: Module): Promise<void> {
  const { limiter, url } = await serve(module);
  for (let i = 0; i < 10; i++) expect((await post(url, { query: '{ items(first: 10) { id name } }' })).status).toBe(200);
  expect(limiter.peek('client', 1).remaining + 1).toBe(1000 - 30);
}

describe('the checks', () => {
  it('pass on the real plugin', async () => {
    await aliasCheck(real);
    await served?.close();
    await refundCheck(real);
  });

  it('catch alias-once (aliases priced once)', async () => {
    const mutant = (await import(buildMutant('alias-once'))) as Module;
    await expect(aliasCheck(mutant)).rejects.toThrow();
  });

  it('catch refund-misread (the actual cost read from no data)', async () => {
    const mutant = (await import(buildMutant('refund-misread'))) as Module;
    await expect(refundCheck(mutant)).rejects.toThrow();
  });
});
