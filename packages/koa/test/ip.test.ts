/**
 * The default key is `ctx.ip`, so Koa's `app.proxy` (and `maxIpsCount`) alone decide whether
 * X-Forwarded-For counts: the adapter contract's IP suite on every Koa major, with app.proxy on and
 * the maxIpsCount values that pick each hop.
 */
import { ipSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';

ipSuite(drivers, [
  { label: 'app.proxy on and maxIpsCount 0', proxy: { maxIpsCount: 0 }, xff: '203.0.113.7, 198.51.100.9', want: '203.0.113.7' },
  { label: 'app.proxy on and maxIpsCount 1', proxy: { maxIpsCount: 1 }, xff: '203.0.113.7, 198.51.100.9', want: '198.51.100.9' },
  { label: 'app.proxy on and maxIpsCount 2', proxy: { maxIpsCount: 2 }, xff: '192.0.2.1, 203.0.113.7, 198.51.100.9', want: '203.0.113.7' },
]);
