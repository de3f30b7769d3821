/**
 * The public surface (the exact export list, the built package loading from CommonJS and ESM): the
 * adapter contract's exports suite, with a CommonJS child that serves one real request through Koa.
 */
import { fileURLToPath } from 'node:url';
import { exportsSuite } from '@ratekeeper/adapter-contract';
import * as api from '../src/index.js';

const SERVE_ONE = `
  const Koa = require('koa');
  const { rateLimit } = require('@ratekeeper/koa');
  const app = new Koa();
  app.use(rateLimit({ algorithm: 'sliding-window', limit: 5, windowMs: 60000 }));
  app.use((ctx) => { ctx.body = 'ok'; });
  const server = app.listen(0, '127.0.0.1', async () => {
    const res = await fetch('http://127.0.0.1:' + server.address().port + '/');
    console.log(JSON.stringify([Object.keys(require('@ratekeeper/koa')), res.status, res.headers.get('ratelimit-policy')]));
    server.close();
  });`;

exportsSuite({
  name: '@ratekeeper/koa',
  root: fileURLToPath(new URL('..', import.meta.url)),
  api,
  exports: ['rateLimit', 'routeKey'],
  serveOne: SERVE_ONE,
  policy: '"sw-5-60000";q=5;w=60',
});
