/**
 * Concurrency leases released at the end of every request's work, aborted ones included: the adapter
 * contract's leases suite on Hono. A middleware that never hands over the answer of a request whose
 * client left (the forgets-aborts mutant) keeps that lease.
 */
import { createAdaptorServer } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Server } from 'node:http';
import { leasesSuite, listen } from '@ratekeeper/adapter-contract';
import { ConcurrencyLimiter } from '@ratekeeper/core';
import { Hono } from 'hono';
import { expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';
import { driver } from './helpers.js';
import { forgetsAborts } from './mutants/forgets-aborts.js';

leasesSuite([driver], { forgetsAborts });

it('releases both leases of a request that passes the same middleware twice (mounted on overlapping paths)', async () => {
  const inflight = new ConcurrencyLimiter({ limit: 2, name: 'inflight' });
  const limited = rateLimit({ limiter: inflight, getConnInfo, key: () => 'k' });
  const app = new Hono();
  app.use('*', limited);
  app.use('/api/*', limited);
  app.get('/api/thing', (c) => c.text('thing'));
  const { http } = listen({ listen: (port, host) => (createAdaptorServer({ fetch: app.fetch }) as Server).listen(port, host) });
  for (let i = 0; i < 3; i++) {
    expect((await http.get('/api/thing')).status, `request ${i}`).toBe(200);
    for (let turn = 0; turn < 5; turn++) await new Promise(setImmediate);
    expect(inflight.peek('k', 2).allowed, `both leases back after request ${i}`).toBe(true);
  }
});
