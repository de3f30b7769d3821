/**
 * Options are validated when rateLimit is called (the adapter contract's validation suite), and the
 * middleware has the shape Express calls: a named three-argument function.
 */
import { validationSuite } from '@ratekeeper/adapter-contract';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';

describe('rateLimit options', () => {
  validationSuite(rateLimit);

  it('returns a named three-argument middleware', () => {
    const middleware = rateLimit();
    expect(middleware.name).toBe('rateLimit');
    expect(middleware.length).toBe(3);
  });
});
