/**
 * The public surface (the exact export list, the built package loading from CommonJS and ESM): the
 * same checks as the adapter contract's exports suite, written out here because that suite's ESM
 * check calls rateLimit() bare, which Hono refuses (no address source). The CommonJS child serves one
 * real request through Hono on @hono/node-server.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as api from '../src/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));

const SERVE_ONE = `
  const { Hono } = require('hono');
  const { createAdaptorServer } = require('@hono/node-server');
  const { getConnInfo } = require('@hono/node-server/conninfo');
  const { rateLimit } = require('@ratekeeper/hono');
  const app = new Hono();
  app.use(rateLimit({ algorithm: 'sliding-window', limit: 5, windowMs: 60000, getConnInfo }));
  app.get('/', (c) => c.text('ok'));
  const server = createAdaptorServer({ fetch: app.fetch }).listen(0, '127.0.0.1', async () => {
    const res = await fetch('http://127.0.0.1:' + server.address().port + '/');
    console.log(JSON.stringify([Object.keys(require('@ratekeeper/hono')), res.status, res.headers.get('ratelimit-policy')]));
    server.close();
  });`;

const node = (args: string[]) => execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8', timeout: 20_000 });

describe('@ratekeeper/hono exports', () => {
  it('exports exactly the documented names', () => {
    expect(Object.keys(api).sort()).toEqual(['rateLimit', 'routeKey']);
  });

  it('has been built (the root `pnpm test` builds first)', () => {
    expect(existsSync(`${root}dist/cjs/index.js`) && existsSync(`${root}dist/esm/index.js`)).toBe(true);
  });

  it('is require()d from CommonJS and serves a request', () => {
    expect(JSON.parse(node(['-e', SERVE_ONE]))).toEqual([['rateLimit', 'routeKey'], 200, '"sw-5-60000";q=5;w=60']);
  });

  it('is import()ed from ESM with the same names, and refuses to guess the address', () => {
    const script = `const m = await import('@ratekeeper/hono'); try { m.rateLimit(); } catch (e) { console.log(JSON.stringify([Object.keys(m), e.name, m.rateLimit({ ip: () => '' }).name])); }`;
    expect(JSON.parse(node(['--input-type=module', '-e', script]))).toEqual([['rateLimit', 'routeKey'], 'TypeError', 'rateLimit']);
  });

  it('resolves the CommonJS and ESM entries to dist', () => {
    const script = `import { createRequire } from 'node:module'; console.log(JSON.stringify([createRequire(process.cwd() + '/').resolve('@ratekeeper/hono'), import.meta.resolve('@ratekeeper/hono')]))`;
    expect(JSON.parse(node(['--input-type=module', '-e', script]))).toEqual([`${root}dist/cjs/index.js`, `file://${root}dist/esm/index.js`]);
  });
});
