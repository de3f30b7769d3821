/**
 * The trust-proxy warning on Fastify: the adapter contract's proxy-warning suite over real HTTP (the
 * message names Fastify's `trustProxy` option), and the same findings through `fastify.inject` with a
 * genuine remoteAddress, no socket rewritten.
 */
import { proxyWarningSuite } from '@ratekeeper/adapter-contract';
import { ManualClock } from '@ratekeeper/core';
import Fastify from 'fastify';
import { beforeEach, describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';
import { drivers } from './driver.js';

proxyWarningSuite(drivers, { setting: /Fastify's `trustProxy` option/ });

describe('through fastify.inject with a remoteAddress', () => {
  beforeEach(() => {
    delete (globalThis as Record<symbol, unknown>)[Symbol.for('ratekeeper.proxyWarnings')];
  });

  async function codes(trustProxy: boolean, remoteAddress: string, headers: Record<string, string>) {
    const seen: string[] = [];
    const listener = (w: Error & { code?: string }) => void (w.name === 'RatekeeperWarning' && seen.push(w.code ?? ''));
    process.on('warning', listener);
    try {
      const app = Fastify({ trustProxy });
      await app.register(rateLimit, { capacity: 2, refillPerSecond: 1, clock: new ManualClock(0) });
      app.get('/', async () => 'ok');
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await app.inject({ url: '/', remoteAddress, headers })).statusCode);
      await new Promise((resolve) => setImmediate(resolve));
      return { seen, statuses };
    } finally {
      process.off('warning', listener);
    }
  }

  it.each([
    [false, '10.0.0.5', { 'x-real-ip': '198.51.100.4' }, ['RATEKEEPER_TRUST_PROXY_OFF']],
    [false, '10.0.0.5', { forwarded: 'for=198.51.100.4' }, ['RATEKEEPER_TRUST_PROXY_OFF']],
    [true, '203.0.113.9', { 'x-forwarded-for': '198.51.100.4' }, ['RATEKEEPER_TRUST_PROXY_OPEN']],
    [true, '10.0.0.5', { 'x-forwarded-for': '198.51.100.4' }, []],
    [false, '203.0.113.9', { 'x-forwarded-for': '198.51.100.4' }, []],
  ] as const)('trustProxy %s, peer %s, %j: warns %j, decisions unchanged', async (trust, peer, headers, want) => {
    const { seen, statuses } = await codes(trust, peer, headers);
    expect(seen).toEqual(want);
    expect(statuses).toEqual([200, 200, 429]);
  });
});
