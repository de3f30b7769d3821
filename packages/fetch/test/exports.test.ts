/**
 * The public surface (the exact export list, the built package loading from CommonJS and ESM): the
 * adapter contract's exports suite, with a CommonJS child that serves one real request through a
 * wrapped fetch handler on @hono/node-server.
 */
import { fileURLToPath } from 'node:url';
import { exportsSuite } from '@ratekeeper/adapter-contract';
import * as api from '../src/index.js';

const SERVE_ONE = `
  const { createAdaptorServer } = require('@hono/node-server');
  const { rateLimit } = require('@ratekeeper/fetch');
  const limit = rateLimit({ algorithm: 'sliding-window', limit: 5, windowMs: 60000 });
  const fetchHandler = limit.wrap(() => new Response('ok'), (request, env) => env.incoming.socket.remoteAddress);
  const server = createAdaptorServer({ fetch: fetchHandler }).listen(0, '127.0.0.1', async () => {
    const res = await fetch('http://127.0.0.1:' + server.address().port + '/');
    console.log(JSON.stringify([Object.keys(require('@ratekeeper/fetch')), res.status, res.headers.get('ratelimit-policy')]));
    server.close();
  });`;

exportsSuite({
  name: '@ratekeeper/fetch',
  root: fileURLToPath(new URL('..', import.meta.url)),
  api,
  exports: ['ipFrom', 'onFinished', 'rateLimit', 'routeKey', 'withHeaders'],
  serveOne: SERVE_ONE,
  policy: '"sw-5-60000";q=5;w=60',
});
