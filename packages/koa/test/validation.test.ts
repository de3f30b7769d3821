/**
 * Options are validated when rateLimit is called (the adapter contract's validation suite; its
 * refusals in Koa's terms: refusalSuite), and the
 * middleware has the shape Koa calls: a named async (ctx, next) function.
 */
import { refusalSuite, validationSuite } from '@ratekeeper/adapter-contract';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';

describe('rateLimit options', () => {
  validationSuite(rateLimit);
  refusalSuite(rateLimit, {
    adapter: '@ratekeeper/koa',
    message: "write a handler instead: handler: (ctx) => { ctx.body = 'Too many requests' } (it runs with ctx.status already set to 429)",
    statusCode: "write a handler that sets it: handler: (ctx) => { ctx.status = 503; ctx.body = '…' } (the default is 429)",
  });

  it('returns a named async two-argument middleware', () => {
    const middleware = rateLimit();
    expect(middleware.name).toBe('rateLimit');
    expect(middleware.length).toBe(2);
    expect(middleware.constructor.name).toBe('AsyncFunction');
  });
});
