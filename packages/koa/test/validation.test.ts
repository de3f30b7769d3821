/**
 * Options are validated when rateLimit is called (the adapter contract's validation suite), and the
 * middleware has the shape Koa calls: a named async (ctx, next) function.
 */
import { validationSuite } from '@ratekeeper/adapter-contract';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';

describe('rateLimit options', () => {
  validationSuite(rateLimit);

  it('returns a named async two-argument middleware', () => {
    const middleware = rateLimit();
    expect(middleware.name).toBe('rateLimit');
    expect(middleware.length).toBe(2);
    expect(middleware.constructor.name).toBe('AsyncFunction');
  });
});
