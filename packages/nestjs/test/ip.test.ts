/**
 * The default key is the address the platform resolved (Express `req.ip` under `trust proxy`,
 * Fastify `request.ip` under `trustProxy`): the adapter contract's IP suite, each platform with the
 * proxy settings it documents.
 */
import { ipSuite } from '@ratekeeper/adapter-contract';
import { drivers } from './helpers.js';

const xff = '203.0.113.7, 198.51.100.9';
const [express, fastify] = drivers as [(typeof drivers)[number], (typeof drivers)[number]];
ipSuite(
  [express],
  [
    { label: "trust proxy 'loopback'", proxy: 'loopback', xff, want: '198.51.100.9' },
    { label: 'trust proxy 2', proxy: 2, xff, want: '203.0.113.7' },
    { label: 'trust proxy true', proxy: true, xff, want: '203.0.113.7' },
  ],
);
ipSuite(
  [fastify],
  [
    { label: "trustProxy '127.0.0.1'", proxy: '127.0.0.1', xff, want: '198.51.100.9' },
    { label: 'trustProxy true', proxy: true, xff, want: '203.0.113.7' },
  ],
);
