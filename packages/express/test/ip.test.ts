/**
 * The default key is `req.ip`, so Express's `trust proxy` setting alone decides whether
 * X-Forwarded-For counts: the adapter contract's IP suite on every Express major, with the `trust
 * proxy` values Express documents and the address each resolves.
 */
import { ipSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';

const xff = '203.0.113.7, 198.51.100.9';
ipSuite(drivers, [
  { label: "trust proxy 'loopback'", proxy: 'loopback', xff, want: '198.51.100.9' },
  { label: 'trust proxy 1', proxy: 1, xff, want: '198.51.100.9' },
  { label: 'trust proxy 2', proxy: 2, xff, want: '203.0.113.7' },
  { label: 'trust proxy true', proxy: true, xff, want: '203.0.113.7' },
]);
