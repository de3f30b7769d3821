/**
 * Options are validated when rateLimit is called (the adapter contract's validation suite; its
 * refusals in Express's terms: refusalSuite), and the
 * middleware has the shape Express calls: a named three-argument function.
 */
import { refusalSuite, validationSuite } from '@ratekeeper/adapter-contract';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';

describe('rateLimit options', () => {
  validationSuite(rateLimit);
  refusalSuite(rateLimit, {
    adapter: '@ratekeeper/express',
    message: "write a handler instead: handler: (req, res) => res.send('Too many requests') (it runs with the status already set to 429)",
    statusCode: "write a handler that sets it: handler: (req, res) => res.status(503).send('…') (the default is 429)",
  });

  it('returns a named three-argument middleware', () => {
    const middleware = rateLimit();
    expect(middleware.name).toBe('rateLimit');
    expect(middleware.length).toBe(3);
  });
});
