/**
 * Both plugins on real servers over HTTP, at fixed instants of a ManualClock: the estimate held, the
 * refund down to the actual cost, the budget's state in `extensions.cost` (or not), the per-operation
 * ceiling, Retry-After in whole seconds rounded up, and the options refused at construction.
 */
import { FixedWindowLimiter, ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import { afterEach, describe, expect, it } from 'vitest';
import { apolloCostBudget, type CostBudgetOptions, CostModel, useCostBudget } from '../src/index.js';
import { Runs, schemaWith } from './support/schema.js';
import { post, type Served, serveApollo, serveYoga } from './support/servers.js';

const SERVERS = [
  ['GraphQL Yoga', serveYoga, useCostBudget],
  ['Apollo Server', serveApollo, apolloCostBudget],
] as const;

describe.each(SERVERS)('%s', (_name, serve, plugin) => {
  let served: Served | undefined;
  afterEach(async () => served?.close());

  const start = async (options: Partial<CostBudgetOptions<unknown>> = {}) => {
    const runs = new Runs();
    const clock = new ManualClock(0);
    const limiter = new TokenBucketLimiter({ capacity: 100, refillPerSecond: 4, clock });
    served = await serve(schemaWith(runs), plugin({ limiter, key: () => 'client', ...options }));
    return { runs, clock, limiter, url: served.url };
  };

  it('holds the estimate and refunds down to the actual cost', async () => {
    const { limiter, url } = await start();
    const answer = await post(url, { query: '{ items(first: 50) { id } }' });
    expect(answer.status).toBe(200);
    expect(answer.body.data.items).toHaveLength(3);
    expect(answer.body.extensions.cost).toEqual({ requestedQueryCost: 50, actualQueryCost: 3, throttleStatus: { maximumAvailable: 100, currentlyAvailable: 97, restoreRate: 4 } });
    expect(limiter.peek('client', 97).allowed).toBe(true);
    expect(limiter.peek('client', 98).allowed).toBe(false);
  });

  it('refuses an estimate the budget cannot hold now, with Retry-After rounded up to whole seconds', async () => {
    const { clock, runs, url } = await start();
    expect((await post(url, { query: '{ items(first: 99) { id } }' })).body.extensions.cost.actualQueryCost).toBe(3);
    // 97 left; 99 more is 2 short: at 4 per second that is 500 ms, announced as 1 s.
    const denied = await post(url, { query: '{ items(first: 99) { id } }' });
    expect(denied.status).toBe(429);
    expect(denied.retryAfter).toBe('1');
    expect(denied.body.errors[0].extensions).toEqual({ code: 'THROTTLED', retryAfterSeconds: 1 });
    expect(denied.body.errors[0].message).toBe('Throttled: this operation costs 99, 97 of 100 available; retry in 1 s');
    expect(runs.counts.get('items')).toBe(1);
    clock.advance(499);
    expect((await post(url, { query: '{ items(first: 99) { id } }' })).status).toBe(429);
    clock.advance(1);
    expect((await post(url, { query: '{ items(first: 99) { id } }' })).status).toBe(200);
  });

  it('charges a failed top-level field its minimum: errors are not free', async () => {
    const { limiter, url } = await start();
    const answer = await post(url, { query: '{ item(id: "none") { name } hello }' });
    expect(answer.body.data).toEqual({ item: null, hello: 'world' });
    expect(answer.body.extensions.cost.actualQueryCost).toBe(2);
    expect(limiter.peek('client', 98).allowed).toBe(true);
    expect(limiter.peek('client', 99).allowed).toBe(false);
  });

  it('leaves extensions alone with extensions: false', async () => {
    const { url } = await start({ extensions: false });
    const answer = await post(url, { query: '{ hello }' });
    expect(answer.body).toEqual({ data: { hello: 'world' } });
  });

  it('refuses an operation above maxCost before it runs, whatever the budget, as 400 MAX_COST_EXCEEDED', async () => {
    const { limiter, runs, url } = await start({ maxCost: 20 });
    const answer = await post(url, { query: '{ items(first: 21) { id } }' });
    expect(answer.status).toBe(400);
    expect(answer.retryAfter).toBeNull();
    expect(answer.body.errors[0].extensions).toEqual({ code: 'MAX_COST_EXCEEDED', cost: 21, maxCost: 20 });
    expect(answer.body.extensions.cost).toEqual({ requestedQueryCost: 21, actualQueryCost: null });
    expect(runs.total).toBe(0);
    expect(limiter.peek('client', 100).allowed).toBe(true);
    expect((await post(url, { query: '{ items(first: 20) { id } }' })).status).toBe(200);
  });

  it('works as a ceiling alone, with no budget', async () => {
    const runs = new Runs();
    served = await serve(schemaWith(runs), plugin({ maxCost: 5, model: new CostModel({ defaultListSize: 5 }) }));
    expect((await post(served.url, { query: '{ items { id } }' })).body.extensions.cost).toEqual({ requestedQueryCost: 5, actualQueryCost: 3 });
    expect((await post(served.url, { query: '{ items(first: 6) { id } }' })).status).toBe(400);
  });

  it('keys the budget by the client the key function names, awaited when it answers a promise', async () => {
    const runs = new Runs();
    const limiter = new FixedWindowLimiter({ limit: 2, windowMs: 60_000, clock: new ManualClock(0) });
    const key = async (context: unknown) => {
      const c = context as { request?: { headers: Headers }; contextValue?: unknown };
      return c.request?.headers.get('x-user') ?? 'apollo-user';
    };
    served = await serve(schemaWith(runs), plugin({ limiter, key }));
    const as = (user: string) => post(served?.url as string, { query: '{ hello }' }, { 'x-user': user });
    expect((await as('ada')).status).toBe(200);
    expect((await as('ada')).status).toBe(200);
    const third = await as('ada');
    expect(third.status).toBe(429);
    // A window's denial waits for the window's end: 60 s.
    expect(third.retryAfter).toBe('60');
    expect(third.body.extensions.cost.throttleStatus).toEqual({ maximumAvailable: 2, currentlyAvailable: 0 });
  });
});

describe('options', () => {
  const limiter = new TokenBucketLimiter({ capacity: 10, refillPerSecond: 1 });
  it.each([
    ['useCostBudget', useCostBudget],
    ['apolloCostBudget', apolloCostBudget],
  ] as const)('%s refuses invalid options at construction', (name, plugin) => {
    expect(() => plugin({})).toThrow(new TypeError(`${name}: options must set limiter (a budget per client), maxCost (a ceiling per operation) or both`));
    expect(() => plugin({ limiter })).toThrow(new TypeError(`${name}: key must be a function (context) => string naming the client, with limiter, got undefined`));
    expect(() => plugin({ maxCost: 0 })).toThrow(new RangeError(`${name}: maxCost must be a positive integer, got 0`));
    expect(() => plugin({ maxCost: 10, extensions: 'yes' as never })).toThrow(new TypeError(`${name}: extensions must be a boolean, got "yes"`));
    expect(() => plugin({ limiter: {} as never, key: () => 'k' })).toThrow(new TypeError(`${name}: limiter must be a RateLimiter (from @ratekeeper/core), got an object`));
    expect(() => plugin({ maxCost: 10, limt: limiter } as never)).toThrow(`${name}: unknown option "limt"`);
    expect(() => plugin({ maxCost: 10, model: { maxListSize: -1 } })).toThrow(new RangeError('CostModel: maxListSize must be a positive integer, got -1'));
  });
});
